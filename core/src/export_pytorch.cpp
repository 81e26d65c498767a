// A training run as one self-contained PyTorch script (see export_pytorch.h).
#include "resnorm/export_pytorch.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

#include "resnorm/json.h"
#include "resnorm/limits.h"
#include "resnorm/weights.h"

namespace resnorm {
namespace {

// Little-endian bytes as base64 (RFC 4648, padded).
std::string base64(const unsigned char* p, size_t n) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t b0 = p[i], b1 = i + 1 < n ? p[i + 1] : 0, b2 = i + 2 < n ? p[i + 2] : 0;
    const uint32_t v = b0 << 16 | b1 << 8 | b2;
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += i + 1 < n ? kAlphabet[v >> 6 & 63] : '=';
    out += i + 2 < n ? kAlphabet[v & 63] : '=';
  }
  return out;
}

// Values as float64 or int32, little-endian (the machines the engine builds for are).
std::string base64_f64(const std::vector<double>& v) {
  return base64(reinterpret_cast<const unsigned char*>(v.data()), v.size() * sizeof(double));
}
std::string base64_i32(const std::vector<int32_t>& v) {
  return base64(reinterpret_cast<const unsigned char*>(v.data()), v.size() * sizeof(int32_t));
}

// A parameter's shape from its name (network.h's names), row-major as the engine holds it.
std::vector<long> param_shape(const std::string& name, long n, int d, int m, int V, int T, int E) {
  auto starts = [&name](const char* p) { return name.rfind(p, 0) == 0; };
  if (name == "embedding") return {E, d};
  if (name == "positions") return {T, d};
  if (name == "unembedding") return {d, V};
  if (starts("W_Q") || starts("W_K") || starts("W_V") || starts("W_O")) return {d, d};
  if (starts("W1")) return {d, m};
  if (starts("W2")) return {m, d};
  return {n};
}

void write_batch(Json& j, const Batch& b, bool language) {
  j.begin_object().key("size").integer(b.size).key("length").integer(b.length);
  if (!b.lengths.empty()) {
    j.key("lengths").begin_array();
    for (int len : b.lengths) j.integer(len);
    j.end_array();
  }
  if (language) {
    j.key("tokens").string(base64_i32(b.tokens)).key("targets").string(base64_i32(b.targets));
  } else {
    std::vector<double> x(b.x.data(), b.x.data() + b.x.size());  // (B, d) row-major
    j.key("x").string(base64_f64(x)).key("y").string(base64_f64(b.y));
  }
  j.end_object();
}

// Each unit's wiring as recipes.h made it: which norms, the skip and its alpha (Admin's profiled omega), c,
// and whether the skip reads the normed input (HybridNorm's FFN).
template <class S>
void write_units(Json& j, Model<S>& stack) {
  j.key("units").begin_array();
  for (int k = 1; k <= stack.units(); ++k) {
    const Wrapping& w = stack.unit_at(k).wrap;
    const char* gate = w.gate == Gate::scalar ? "scalar" : w.gate == Gate::channel ? "channel" : "none";
    j.begin_object().key("skip").boolean(w.skip).key("alpha").exact(w.alpha).key("in").string(name(w.in));
    j.key("out").string(name(w.out)).key("outer").string(name(w.outer)).key("in_scale").exact(w.in_scale);
    j.key("gate").string(gate).key("gate_init").exact(w.gate_init).key("skip_normed").boolean(w.skip_normed);
    j.end_object();
  }
  j.end_array();
}

std::string implemented_list() {
  std::string s;
  for (Arch a : pytorch_archs()) s += (s.empty() ? "" : ", ") + std::string(name(a));
  return s;
}

}  // namespace

const std::vector<Arch>& pytorch_archs() {
  static const std::vector<Arch> archs = {
      Arch::plain,    Arch::residual, Arch::post_ln, Arch::post_rms, Arch::pre_ln,     Arch::pre_rms, Arch::sandwich,
      Arch::deepnorm, Arch::gpt2,     Arch::admin,   Arch::rezero,   Arch::layerscale, Arch::lns,     Arch::mix_ln,
      Arch::dwa,      Arch::dyt,      Arch::hyper,   Arch::mhc,      Arch::attn_res,   Arch::hybrid,  Arch::ngpt};
  return archs;
}

namespace {

// One group's document: its config, task, each run's wiring and initial parameters (with the
// lab's key and label when `keyed`), then, when `data` is not null, its data inline (the one-group
// script's RUN), else the index of its data in the several-group RUN's "data".
template <class S>
std::string group_json(const std::vector<Trainer<S>*>& trainers, const PytorchGroup& g, bool keyed,
                       const std::string* data, int data_index) {
  const TrainConfig& tc = trainers[0]->config();
  const TaskData& task = trainers[0]->task();
  const int d = tc.width, m = tc.expansion * tc.width, V = task.vocab(), T = task.context();
  const int E = task.embedding_rows();
  Json j;
  j.begin_object().key("format").string("resnorm-pytorch").key("version").integer(1);
  j.key("config").raw(train_config_json(tc)).key("config_text").string(train_config_text(tc));
  j.key("chance_loss").exact(task.chance_loss()).key("optimal_loss").exact(task.optimal_loss());
  j.key("model").begin_object().key("language").boolean(task.language()).key("vocab").integer(V);
  j.key("context").integer(T).key("embedding_rows").integer(E).key("final_norm").begin_object();
  for (Trainer<S>* t : trainers) j.key(name(t->arch())).string(name(final_norm_of(tc, t->arch())));
  j.end_object().end_object();
  j.key("runs").begin_array();
  for (size_t i = 0; i < trainers.size(); ++i) {
    Trainer<S>* t = trainers[i];
    j.begin_object().key("arch").string(name(t->arch()));
    if (keyed) j.key("key").string(g.keys[i]).key("label").string(g.labels[i]);
    write_units(j, t->network().stack());
    j.key("params").begin_array();
    for (const Param<S>& p : t->network().params()) {
      j.begin_object().key("name").string(p.name).key("shape").begin_array();
      for (long s : param_shape(p.name, p.n, d, m, V, T, E)) j.integer(s);
      j.end_array().key("block").integer(p.block).key("matrix").boolean(p.matrix);
      const std::vector<double> w(p.w, p.w + p.n);
      j.key("data").string(base64_f64(w)).end_object();
    }
    j.end_array().end_object();
  }
  j.end_array();
  if (data)
    j.raw(*data);
  else
    j.key("data").integer(data_index);
  return j.end_object().str();
}

// A task's data as the members "train_batches" and "heldout" (no braces: inline in a group, or
// wrapped as one entry of the several-group RUN's "data").
std::string data_members(const TrainConfig& tc, const TaskData& task) {
  Json j;
  j.begin_object().key("train_batches").begin_array();
  for (int64_t s = 0; s < tc.steps; ++s) write_batch(j, task.train_batch(s), task.language());
  j.end_array().key("heldout").begin_array();
  for (const Batch& b : task.heldout()) write_batch(j, b, task.language());
  std::string out = j.end_array().end_object().str();
  return out.substr(1, out.size() - 2);
}

// The file's size estimate for one group before writing it: base64 is 4/3 of the bytes, the JSON's keys a little more.
template <class S>
double group_bytes(const std::vector<Trainer<S>*>& trainers, double* data_bytes) {
  const TrainConfig& tc = trainers[0]->config();
  const TaskData& task = trainers[0]->task();
  const int d = tc.width, T = task.context();
  const double per_batch =
      task.language() ? 2.0 * tc.batch * T * sizeof(int32_t) : double(tc.batch) * (d + 1) * sizeof(double);
  double params = 0;
  for (Trainer<S>* t : trainers)
    for (const Param<S>& p : t->network().params()) params += double(p.n) * sizeof(double);
  *data_bytes = 4.0 / 3.0 * per_batch * (double(tc.steps) + tc.eval_batches) + 200.0 * (tc.steps + tc.eval_batches);
  return 4.0 / 3.0 * params;
}

Status too_large(double bytes, const std::vector<PytorchGroup>& groups) {
  const TrainConfig& tc = groups[0].config;
  char msg[280];
  if (groups.size() == 1)
    std::snprintf(msg, sizeof msg,
                  "steps: the PyTorch script would hold %.1f MB of data and weights (%d steps of batch %d), over "
                  "its %.0f MB limit: lower --steps or --batch",
                  bytes / 1e6, tc.steps, tc.batch, kPytorchMaxBytes / 1e6);
  else
    std::snprintf(msg, sizeof msg,
                  "steps: the PyTorch script would hold %.1f MB of data and weights (%zu settings' runs, the first "
                  "%d steps of batch %d), over its %.0f MB limit: lower --steps or --batch",
                  bytes / 1e6, groups.size(), tc.steps, tc.batch, kPytorchMaxBytes / 1e6);
  return {"steps", msg};
}

}  // namespace

template <class S>
Status export_pytorch(const std::vector<PytorchGroup>& groups, double held, std::string* script) {
  if (groups.empty()) return {"arch", "arch: no architecture to export"};
  const bool keyed = groups.size() > 1;
  std::vector<std::string> docs, data;  // each group's document; each distinct data once (several groups)
  double bytes = double(std::strlen(kResnormTorchPy));
  for (const PytorchGroup& g : groups) {
    const TrainConfig& tc = g.config;
    if (tc.archs.empty()) return {"arch", "arch: no architecture to export"};
    if (keyed && (g.keys.size() != tc.archs.size() || g.labels.size() != tc.archs.size()))
      return {"arch", "arch: each run of several settings needs its key and label"};
    for (Arch a : tc.archs) {
      const auto& ok = pytorch_archs();
      if (std::find(ok.begin(), ok.end(), a) == ok.end())
        return {"arch", "arch: " + std::string(name(a)) +
                            " has no PyTorch export yet (implemented: " + implemented_list() + ")"};
    }
    // configured afresh, one group at a time: the script holds the initial weights
    std::vector<std::unique_ptr<Trainer<S>>> owned;
    std::vector<Trainer<S>*> trainers;
    for (Arch a : tc.archs) {
      owned.push_back(std::make_unique<Trainer<S>>());
      const Status st = owned.back()->configure(tc, a, held);
      if (!st.ok()) return st;
      trainers.push_back(owned.back().get());
    }
    double data_bytes = 0;
    bytes += group_bytes(trainers, &data_bytes);
    if (bytes + data_bytes > kPytorchMaxBytes) return too_large(bytes + data_bytes, groups);
    const std::string members = data_members(tc, trainers[0]->task());
    if (!keyed) {
      docs.push_back(group_json(trainers, g, false, &members, 0));
      break;
    }
    auto same = std::find(data.begin(), data.end(), members);
    if (same == data.end()) {
      bytes += double(members.size());
      if (bytes > kPytorchMaxBytes) return too_large(bytes, groups);
      same = data.insert(data.end(), members);
    }
    docs.push_back(group_json(trainers, g, true, nullptr, int(same - data.begin())));
  }

  std::string& out = *script;
  out = kResnormTorchPy;
  out += "\n\n# ---- the run: config, initial parameters and data (written by resnorm's exporter) ----\n";
  if (!keyed) {
    out += "# " + train_config_text(groups[0].config) + "\n";
    out += "RUN = json.loads(r'''" + docs[0] + "''')\n\n";
    out += "if __name__ == \"__main__\":\n    main(RUN)\n";
    return Status::Ok();
  }
  Json j;
  j.begin_object().key("format").string("resnorm-pytorch-runs").key("version").integer(1).key("groups").begin_array();
  for (size_t i = 0; i < docs.size(); ++i) {
    out += "# " + train_config_text(groups[i].config) + "\n";
    j.raw(docs[i]);
  }
  j.end_array().key("data").begin_array();
  for (const std::string& members : data) j.raw("{" + members + "}");
  j.end_array().end_object();
  out += "RUN = json.loads(r'''" + j.str() + "''')\n\n";
  out += "if __name__ == \"__main__\":\n    main_runs(RUN)\n";
  return Status::Ok();
}

Status export_pytorch_simulation(const Config& cfg, std::string* script) {
  Status st = check_simulate(cfg);
  if (!st.ok()) return st;
  for (Arch a : cfg.archs) {
    const auto& ok = pytorch_archs();
    if (std::find(ok.begin(), ok.end(), a) == ok.end())
      return {"arch",
              "arch: " + std::string(name(a)) + " has no PyTorch export yet (implemented: " + implemented_list() + ")"};
  }
  const bool transformer = cfg.block == Block::transformer;
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, transformer);
  const int d = cfg.width, m = cfg.hidden();
  Json j;
  j.begin_object().key("format").string("resnorm-pytorch-simulation").key("version").integer(1);
  j.key("config").raw(config_json(cfg)).key("runs").begin_array();
  std::vector<double> h0, r;
  for (Arch a : cfg.archs) {
    Model<double> model;
    model.configure(cfg, a, bank);  // Admin's omegas profiled here, as the simulation's
    if (h0.empty()) {
      h0.assign(model.input().data(), model.input().data() + model.input().size());
      r.assign(model.readout_matrix().data(), model.readout_matrix().data() + model.readout_matrix().size());
    }
    j.begin_object().key("arch").string(name(a));
    write_units(j, model);
    // The simulation's parameters under the training network's names: W = s B with the recipe's scale s.
    j.key("params").begin_array();
    auto put = [&j](const std::string& n, const double* w, long size, std::vector<long> shape) {
      j.begin_object().key("name").string(n).key("shape").begin_array();
      for (long x : shape) j.integer(x);
      j.end_array().key("data").string(base64_f64(std::vector<double>(w, w + size))).end_object();
    };
    auto scaled = [&](const std::string& n, const Mat<double>& b, double s, std::vector<long> shape) {
      const Mat<double> w = s * b;
      put(n, w.data(), w.size(), std::move(shape));
    };
    auto norms = [&](Norm<double>& nm, const std::string& where) {
      if (nm.kind == NormKind::none) return;
      put("gamma." + where, nm.gamma.data(), nm.gamma.size(), {long(nm.gamma.size())});
      if (nm.kind == NormKind::layernorm || nm.kind == NormKind::dyt)
        put("beta." + where, nm.beta.data(), nm.beta.size(), {long(nm.beta.size())});
      if (nm.kind == NormKind::dyt) put("alpha." + where, nm.alpha.data(), 1, {1});
    };
    const int P = model.sublayers_per_block();
    for (int l = 1; l <= cfg.depth; ++l) {
      const std::string at = "[" + std::to_string(l) + "]";
      if (transformer) {
        const Attention<double>& att = model.attention(l);
        const AttnBase<double>& ab = *att.weights.base;
        scaled("W_Q" + at, ab.Bq, att.weights.sq, {d, d});
        scaled("W_K" + at, ab.Bk, att.weights.sk, {d, d});
        scaled("W_V" + at, ab.Bv, att.weights.sv, {d, d});
        scaled("W_O" + at, ab.Bo, att.weights.so, {d, d});
        if (att.qk_norm != QkNorm::none) {
          put("gamma_q" + at, att.gq.data(), att.gq.size(), {long(att.gq.size())});
          put("gamma_k" + at, att.gk.data(), att.gk.size(), {long(att.gk.size())});
        }
        if (att.v_norm) put("gamma_v" + at, att.gv.data(), att.gv.size(), {long(att.gv.size())});
        if (att.ngpt) put("s_qk" + at, att.sqk.data(), att.sqk.size(), {long(att.sqk.size())});
      }
      const Mlp<double>& f = model.mlp(l);
      scaled("W1" + at, f.weights.base->B1, f.weights.s1, {d, m});
      scaled("W2" + at, f.weights.base->B2, f.weights.s2, {m, d});
      if (f.sv.size() > 0) put("s_v" + at, f.sv.data(), f.sv.size(), {long(f.sv.size())});
      for (int q = 0; q < P; ++q) {
        Unit<double>& u = model.unit(l, q);
        const std::string unit = "[unit " + std::to_string((l - 1) * P + q + 1) + "]";
        norms(u.in, "in" + unit);
        norms(u.out, "out" + unit);
        norms(u.outer, "outer" + unit);
        if (u.wrap.gate != Gate::none) put("gate" + unit, u.gate.data(), u.gate.size(), {long(u.gate.size())});
        if (u.wrap.sphere) put("ngpt_alpha" + unit, u.alpha.data(), u.alpha.size(), {long(u.alpha.size())});
        // Hyper-Connections' weights (mHC's logits), flat as the training network's: read, mix (n n), write.
        if (model.hyper_on()) {
          Hyper<double>& hc = model.hyper();
          const int k = (l - 1) * P + q + 1, n = hc.n();
          const bool mhc = hc.kind() == HyperKind::mhc;
          put((mhc ? "mhc_pre" : "hc_read") + unit, hc.read_param(k), n, {long(n)});
          put((mhc ? "mhc_res" : "hc_mix") + unit, hc.res_param(k), long(n) * n, {long(n) * n});
          put((mhc ? "mhc_post" : "hc_write") + unit, hc.write_param(k), n, {long(n)});
        }
        if (model.has_attn_res()) {
          const int k = (l - 1) * P + q + 1;
          put("attn_res.query" + unit, model.attn_res().query(k), d, {long(d)});
          put("attn_res.gain" + unit, model.attn_res().gain(k), d, {long(d)});
        }
      }
      if (model.dense()) put("dwa" + at, model.mix_row(l), l + 1, {long(l + 1)});
    }
    norms(model.final_norm(), "final");
    j.end_array().end_object();
  }
  j.end_array();
  j.key("input").string(base64_f64(h0)).key("readout").string(base64_f64(r)).end_object();
  std::string& out = *script;
  out = kResnormTorchPy;
  out += "\n\n# ---- the simulation: config, weights, input and readout (written by resnorm's exporter) ----\n";
  out += "RUN = json.loads(r'''" + j.str() + "''')\n\n";
  out += "if __name__ == \"__main__\":\n    main_simulation(RUN)\n";
  return Status::Ok();
}

template Status export_pytorch<float>(const std::vector<PytorchGroup>&, double, std::string*);
template Status export_pytorch<double>(const std::vector<PytorchGroup>&, double, std::string*);

}  // namespace resnorm

// Training one architecture: the step loop with its metrics, the lesion
// study, the saved state, and what training costs (see trainer.h).
#include "resnorm/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "resnorm/recipes.h"
#include "resnorm/results.h"

namespace resnorm {
namespace {

constexpr uint32_t kMaxConfigText = 4096;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Reads fixed-size values off a saved state, never past `end` (where its
// checksum starts).
struct Reader {
  const StateReader& read;
  uint64_t end;
  uint64_t at = 0;
  bool ok = true;
  template <class T>
  T get() {
    T v{};
    if (end - at < sizeof v) {
      ok = false;
      return v;
    }
    read(at, reinterpret_cast<char*>(&v), sizeof v);
    at += sizeof v;
    return v;
  }
};

constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;
uint64_t fnv(uint64_t h, const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
  return h;
}

Status bad_state(const std::string& what) { return {"state", "state: " + what}; }

// Entries the parameters of one arch hold, from the shapes (as Network allocates them).
double param_count(const TrainConfig& tc, Arch arch, const Config& cfg, int T) {
  const double d = tc.width;
  double n = tc.depth * cfg.weights_per_block();
  auto norm = [&](NormKind k) { return k == NormKind::layernorm ? 2 * d : k == NormKind::rmsnorm ? d : 0.0; };
  const Recipe rec = recipe(arch, tc.depth, cfg.sublayers_per_block(), tc.mix_fraction);
  const Wrapping& w = rec.wrap;  // Mix-LN's early blocks hold as many norms
  const double gate = w.gate == Gate::scalar ? 1.0 : w.gate == Gate::channel ? d : 0.0;
  n += double(tc.depth) * cfg.sublayers_per_block() * (norm(w.in) + norm(w.out) + norm(w.outer) + gate);
  if (rec.dense_average) n += 0.5 * tc.depth * (tc.depth + 3.0);
  n += norm(cfg.final_norm);
  if (tc.task == Task::teacher) return n + d;
  return n + 2 * d * tc.vocab + (tc.positions == Positions::learned ? T * d : 0.0);
}

double mean_pairwise_cosine(const Mat<double>& x) {
  const long n = x.rows();
  if (n < 2) return kNaN;
  Vecx<double> norms = x.rowwise().norm();
  double sum = 0;
  for (long i = 0; i < n; ++i)
    for (long j = i + 1; j < n; ++j) {
      const double den = norms(i) * norms(j);
      sum += den > 0 ? x.row(i).dot(x.row(j)) / den : (norms(i) == norms(j) ? 1.0 : 0.0);
    }
  return sum / (0.5 * double(n) * double(n - 1));
}

}  // namespace

Cost train_cost(const TrainConfig& tc, int sb) {
  const TaskData shape_only = [&] {
    TrainConfig t = tc;
    t.eval_batches = 1;
    t.batch = 1;
    return TaskData(t);
  }();
  const int T = shape_only.context();
  const bool language = tc.task != Task::teacher;
  const int rows = language ? T : (tc.block == Block::transformer ? 1 : tc.batch);
  const double passes = language ? tc.batch : double(tc.batch) / rows;
  const double V = tc.vocab, d = tc.width;
  Cost k;
  // The held-out set and the step's batch (tokens, targets or x, y).
  const double batch_bytes = language ? 2.0 * tc.batch * T * 4 : tc.batch * (d + 1) * 8.0;
  k.bytes += (tc.eval_batches + 1) * batch_bytes;
  for (Arch a : tc.archs) {
    const Config cfg = stack_config(tc, a, rows);
    const double params = param_count(tc, a, cfg, T);
    // Model caches; values, gradient, two moments and the logged step's copy of each parameter;
    // logits, their gradient, and two Outputs of held-out batch 0 in double.
    k.bytes += model_bytes(cfg, a, sb, true) + 5 * params * sb + 2 * rows * (language ? V : 1) * sb;
    k.bytes += 2.0 * tc.batch * T * ((language ? V : 1) + d) * 8;
    // One update: the passes forward and backward (materialized dW: another
    // forward's worth), the head, the optimizer; the logged held-out passes amortized.
    const double head = language ? 6.0 * T * d * V : 6.0 * rows * d;
    k.work += passes * (1.5 * stack_work(cfg) + mix_work(cfg, a) + head) *
              (1.0 + 2.0 * (tc.eval_batches + 1) / tc.log_every / 3.0);
    k.work += 20 * params;
  }
  return k;
}

double trainer_bytes(const TrainConfig& tc, Arch arch, int sb) {
  TrainConfig one = tc;
  one.archs = {arch};
  return train_cost(one, sb).bytes;
}

Status check_train(const TrainConfig& tc, double held) {
  Status st = validate(tc);
  if (!st.ok()) return st;
  const Cost k = train_cost(tc);
  if (fits(k, held)) return Status::Ok();
  int lo = 0, hi = tc.depth;
  TrainConfig t = tc;
  while (lo < hi) {
    t.depth = (lo + hi + 1) / 2;
    if (fits(train_cost(t), held))
      lo = t.depth;
    else
      hi = t.depth - 1;
  }
  return check_cost(k, "depth", tc.depth, lo, held);
}

const char* outcome(const TrainLog& last, double chance, double optimal) {
  if (last.first_nonfinite >= 0 || !std::isfinite(last.heldout_loss) || last.heldout_loss > 1.5 * chance)
    return "diverged";
  if (last.heldout_loss <= optimal + 0.5 * (chance - optimal)) return "trained";
  if (last.top_cosine > 0.99 && last.heldout_loss >= 0.9 * chance) return "collapsed";
  return "slow";
}

template <class S>
Status Trainer<S>::configure(const TrainConfig& tc, Arch arch, double held) {
  Status st = check_train(tc);
  if (st.ok() && held > 0) {
    TrainConfig one = tc;
    one.archs = {arch};
    st = check_train(one, held);
  }
  if (!st.ok()) return st;
  tc_ = tc;
  arch_ = arch;
  task_ = std::make_unique<TaskData>(tc);
  net_ = std::make_unique<Network<S>>(tc, arch, *task_);
  optim_ = std::make_unique<Optim<S>>(tc, net_->params());
  first_nonfinite_ = -1;
  net_->run(task_->heldout()[0], false);
  contribution_init_ = contributions();
  return Status::Ok();
}

template <class S>
std::vector<double> Trainer<S>::contributions() const {
  const LayerSums& s = net_->sums();
  const int P = tc_.block == Block::transformer ? 2 : 1;
  std::vector<double> c(tc_.depth, 0.0);
  for (int l = 0; l < tc_.depth; ++l) {
    double sq = 0;
    for (int j = 0; j < P; ++j) {
      const int k = l * P + j;
      const double r = s.skip_sq[k] > 0 ? std::sqrt(s.update_sq[k] / s.skip_sq[k]) : 0.0;
      sq += r * r;
    }
    c[l] = std::sqrt(sq);
  }
  return c;
}

template <class S>
double Trainer<S>::heldout_loss(long* correct, long* scored, Outputs* first) {
  double total = 0;
  *correct = 0;
  *scored = 0;
  Outputs rest;
  for (const Batch& b : task_->heldout()) {
    Outputs* out = (first && &b == &task_->heldout().front()) ? first : &rest;
    const long n = b.scored();
    total += net_->run(b, false, 0, out, false) * double(n);
    *correct += out->correct;
    *scored += n;
  }
  return total / double(*scored);
}

template <class S>
std::vector<TrainLog> Trainer<S>::step(int64_t n) {
  std::vector<TrainLog> logs;
  std::vector<Param<S>>& params = net_->params();
  const int L = tc_.depth;
  for (int64_t i = 0; i < n && !stopped() && steps_done() < tc_.steps; ++i) {
    const int64_t t = steps_done() + 1;
    const bool logged = t % tc_.log_every == 0 || t == tc_.steps;
    Outputs before, after;
    if (logged) net_->run(task_->heldout()[0], false, 0, &before, false);
    TrainLog log;
    log.step = t;
    log.train_loss = net_->run(task_->train_batch(t - 1), true, 0, nullptr, logged);
    std::vector<double> w_sq(L, 0.0);
    if (logged) {
      const LayerSums& s = net_->sums();
      for (int l = 0; l <= L; ++l) {
        log.grad_norm.push_back(std::sqrt(s.grad_sq[l]));
        log.stream_rms.push_back(std::sqrt(s.stream_sq[l] / (s.rows * tc_.width)));
      }
      log.contribution = contributions();
      for (const Param<S>& p : params)
        if (p.matrix && p.block >= 1 && p.block <= L) w_sq[p.block - 1] += sq_norm(p.g, p.n);
      for (double q : w_sq) log.w_grad_norm.push_back(std::sqrt(q));
    }
    log.grad_norm_global = clip_gradients(params, tc_.clip);
    log.lr = learning_rate(tc_, t);
    if (!std::isfinite(log.train_loss) || !std::isfinite(log.grad_norm_global)) {
      first_nonfinite_ = log.first_nonfinite = t;
      log.heldout_loss = log.heldout_accuracy = log.output_change = log.top_cosine = kNaN;
      logs.push_back(log);
      break;
    }
    std::vector<Vecx<S>> saved;
    if (logged)
      for (const Param<S>& p : params)
        if (p.matrix && p.block >= 1 && p.block <= L) saved.push_back(Eigen::Map<const Vecx<S>>(p.w, p.n));
    optim_->update(params, log.lr);
    if (!logged) continue;
    std::vector<double> du(L, 0.0), w0(L, 0.0);
    size_t k = 0;
    for (const Param<S>& p : params)
      if (p.matrix && p.block >= 1 && p.block <= L) {
        const Vecx<double> before_w = saved[k++].template cast<double>();
        du[p.block - 1] += (Eigen::Map<const Vecx<S>>(p.w, p.n).template cast<double>() - before_w).squaredNorm();
        w0[p.block - 1] += before_w.squaredNorm();
      }
    for (int l = 0; l < L; ++l) log.update_ratio.push_back(w0[l] > 0 ? std::sqrt(du[l] / w0[l]) : 0.0);
    long correct = 0, scored = 0;
    log.heldout_loss = heldout_loss(&correct, &scored, &after);
    log.heldout_accuracy = task_->language() ? double(correct) / double(scored) : kNaN;
    log.output_change = std::sqrt((after.f - before.f).squaredNorm() / double(after.f.size()));
    log.top_cosine = mean_pairwise_cosine(after.top);
    if (!std::isfinite(log.heldout_loss)) first_nonfinite_ = log.first_nonfinite = t;
    logs.push_back(log);
  }
  return logs;
}

template <class S>
Lesion Trainer<S>::lesion() {
  Lesion les;
  // Held-out losses as heldout_loss() sums them, for the whole model and each block skipped.
  const int L = tc_.depth;
  std::vector<double> total(L + 1, 0.0), part;
  long scored = 0;
  for (const Batch& b : task_->heldout()) {
    net_->lesion_losses(b, part);
    const long n = b.scored();
    for (int l = 0; l <= L; ++l) total[l] += part[l] * double(n);
    scored += n;
  }
  les.base = total[0] / double(scored);
  for (int l = 1; l <= L; ++l) {
    const double loss = total[l] / double(scored);
    les.loss.push_back(loss);
    les.increase.push_back(loss - les.base);
    les.relative.push_back((loss - les.base) / les.base);
  }
  net_->run(task_->heldout()[0], false);
  les.contribution = contributions();
  les.contribution_init = contribution_init_;
  return les;
}

// Every tensor of the state in order: the parameters, the first moments, the second moments.
template <class S>
static std::vector<std::pair<S*, long>> state_tensors(Network<S>& net, Optim<S>& opt) {
  std::vector<std::pair<S*, long>> t;
  for (Param<S>& p : net.params()) t.push_back({p.w, p.n});
  for (Vecx<S>& m : opt.first()) t.push_back({m.data(), m.size()});
  for (Vecx<S>& v : opt.second()) t.push_back({v.data(), v.size()});
  return t;
}

uint64_t state_checksum(std::string_view bytes) { return fnv(kFnvBasis, bytes.data(), bytes.size()); }

template <class S>
std::string Trainer<S>::state_header() const {
  std::string s(kStateMagic, sizeof kStateMagic);
  put<uint32_t>(s, kStateVersion);
  put<uint32_t>(s, static_cast<uint32_t>(arch_));
  const std::string text = train_config_text(tc_);
  put<uint32_t>(s, static_cast<uint32_t>(text.size()));
  s += text;
  put<uint32_t>(s, sizeof(S));
  put<int64_t>(s, optim_->step());
  put<int64_t>(s, first_nonfinite_);
  const auto tensors = state_tensors(*net_, *optim_);
  put<uint32_t>(s, static_cast<uint32_t>(tensors.size()));
  for (const auto& [p, n] : tensors) put<uint64_t>(s, static_cast<uint64_t>(n));
  return s;
}

template <class S>
uint64_t Trainer<S>::state_size() const {
  uint64_t n = state_header().size() + 8;
  for (const auto& [p, count] : state_tensors(*net_, *optim_)) n += sizeof(S) * static_cast<uint64_t>(count);
  return n;
}

template <class S>
void Trainer<S>::write_state(const StateWriter& write) const {
  const std::string head = state_header();
  uint64_t h = fnv(kFnvBasis, head.data(), head.size());
  write(head.data(), head.size());
  for (const auto& [p, n] : state_tensors(*net_, *optim_)) {
    if (n == 0) continue;
    const char* bytes = reinterpret_cast<const char*>(p);
    h = fnv(h, bytes, sizeof(S) * n);
    write(bytes, sizeof(S) * n);
  }
  char sum[8];
  std::memcpy(sum, &h, 8);
  write(sum, 8);
}

template <class S>
std::string Trainer<S>::state() const {
  std::string s;
  s.reserve(state_size());
  write_state([&s](const char* p, size_t n) { s.append(p, n); });
  return s;
}

template <class S>
Status Trainer<S>::load(std::string_view blob, double held) {
  return load(
      blob.size(), [blob](uint64_t at, char* out, size_t n) { std::memcpy(out, blob.data() + at, n); }, held);
}

template <class S>
Status Trainer<S>::load(uint64_t size, const StateReader& read, double held) {
  const uint64_t min_size = sizeof kStateMagic + 4 * 4 + 2 * 8 + 4 + 8;
  if (size < min_size)
    return bad_state("truncated (" + std::to_string(size) + " bytes, a state has at least " + std::to_string(min_size) +
                     ")");
  char magic[sizeof kStateMagic];
  read(0, magic, sizeof magic);
  if (std::memcmp(magic, kStateMagic, sizeof kStateMagic) != 0) return bad_state("not a resnorm training state");
  Reader r{read, size - 8, sizeof kStateMagic};
  const uint32_t version = r.get<uint32_t>();
  if (version != kStateVersion)
    return bad_state("version " + std::to_string(version) + " is not supported (allowed " +
                     std::to_string(kStateVersion) + ")");
  {
    // The checksum over every byte before it, a buffer at a time.
    uint64_t sum;
    read(size - 8, reinterpret_cast<char*>(&sum), 8);
    std::string buf(static_cast<size_t>(std::min<uint64_t>(size - 8, kStateReadBytes)), '\0');
    uint64_t h = kFnvBasis;
    for (uint64_t at = 0; at < size - 8;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - 8 - at));
      read(at, buf.data(), n);
      h = fnv(h, buf.data(), n);
      at += n;
    }
    if (sum != h) return bad_state("checksum mismatch: the state is damaged");
  }
  const uint32_t arch = r.get<uint32_t>();
  if (arch >= static_cast<uint32_t>(kNumArchs)) return bad_state("unknown architecture " + std::to_string(arch));
  const uint32_t text_size = r.get<uint32_t>();
  if (!r.ok || text_size > kMaxConfigText || text_size > r.end - r.at)
    return bad_state("config of " + std::to_string(text_size) + " bytes does not fit");
  std::string text(text_size, '\0');
  read(r.at, text.data(), text_size);
  r.at += text_size;
  TrainConfig tc;
  Status st = parse_train_config_text(text, &tc);
  if (!st.ok()) return bad_state("config: " + st.message);
  if (r.get<uint32_t>() != sizeof(S)) return bad_state("scalar size differs from this trainer's");
  const int64_t steps = r.get<int64_t>(), first_nonfinite = r.get<int64_t>();
  if (steps < 0 || steps > tc.steps) return bad_state("step " + std::to_string(steps) + " is out of range");
  if (first_nonfinite < -1 || first_nonfinite > steps) return bad_state("stop step is out of range");
  // Of this trainer's own config and arch, the state is read into it in place:
  // the init, the task and the held-out set are the same, so only the tensors,
  // the step and the stop state differ. Otherwise a new trainer is made beside it.
  const bool in_place = net_ && static_cast<Arch>(arch) == arch_ && train_config_text(tc) == train_config_text(tc_);
  Trainer<S> fresh;
  if (!in_place) {
    st = fresh.configure(tc, static_cast<Arch>(arch), held);
    if (!st.ok()) return bad_state("config: " + st.message);
  }
  Trainer<S>& into = in_place ? *this : fresh;
  const auto tensors = state_tensors(*into.net_, *into.optim_);
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok || count != tensors.size())
    return bad_state("holds " + std::to_string(count) + " tensors, its config has " + std::to_string(tensors.size()));
  uint64_t payload = 0;
  for (const auto& [p, n] : tensors) {
    const uint64_t n_stored = r.get<uint64_t>();
    if (!r.ok || n_stored != static_cast<uint64_t>(n)) return bad_state("a tensor's size does not match its config");
    payload += sizeof(S) * static_cast<uint64_t>(n);
  }
  if (r.end - r.at != payload) return bad_state("payload size does not match its config");
  // Every check has passed: from here nothing can refuse.
  for (const auto& [p, n] : tensors) {
    if (n > 0) read(r.at, reinterpret_cast<char*>(p), sizeof(S) * n);
    r.at += sizeof(S) * n;
  }
  into.optim_->set_step(steps);
  into.first_nonfinite_ = first_nonfinite;
  if (!in_place) *this = std::move(fresh);
  return Status::Ok();
}

std::string train_log_json(Arch arch, const TrainLog& g) {
  std::string s = std::string("{\"arch\": \"") + name(arch) + "\", \"step\": " + std::to_string(g.step);
  const std::pair<const char*, double> scalars[] = {{"lr", g.lr},
                                                    {"train_loss", g.train_loss},
                                                    {"heldout_loss", g.heldout_loss},
                                                    {"heldout_accuracy", g.heldout_accuracy},
                                                    {"grad_norm_global", g.grad_norm_global},
                                                    {"output_change", g.output_change},
                                                    {"top_cosine", g.top_cosine}};
  for (const auto& [k, v] : scalars) s += std::string(", \"") + k + "\": " + json_number(v);
  const std::pair<const char*, const std::vector<double>*> arrays[] = {{"grad_norm", &g.grad_norm},
                                                                       {"stream_rms", &g.stream_rms},
                                                                       {"w_grad_norm", &g.w_grad_norm},
                                                                       {"update_ratio", &g.update_ratio},
                                                                       {"contribution", &g.contribution}};
  for (const auto& [k, v] : arrays) {
    s += std::string(", \"") + k + "\": ";
    append_json_array(s, *v);
  }
  s += ", \"first_nonfinite\": " + (g.first_nonfinite < 0 ? std::string("null") : std::to_string(g.first_nonfinite));
  return s + "}";
}

template <class S>
Gates Trainer<S>::gates() const {
  Gates g;
  Model<S>& m = net_->stack();
  for (int k = 1; k <= m.units(); ++k) {
    const Unit<S>& u = m.unit_at(k);
    if (u.wrap.gate == Gate::none) continue;
    const long n = u.gate.size();
    g.width = static_cast<int>(n);
    double sum = 0;
    for (long i = 0; i < n; ++i) {
      g.values.push_back(double(u.gate.data()[i]));
      sum += std::abs(double(u.gate.data()[i]));
    }
    g.init.push_back(u.wrap.gate_init);
    g.magnitude.push_back(n > 0 ? sum / double(n) : 0.0);
  }
  return g;
}

std::string train_summary_json(const TrainLog& last, const Lesion& les, const Gates& gates,
                               const std::vector<double>& dwa, double chance, double optimal) {
  std::string s =
      "{\"steps\": " + std::to_string(last.step) + ", \"outcome\": \"" + outcome(last, chance, optimal) + "\"";
  s += ", \"train_loss\": " + json_number(last.train_loss) + ", \"heldout_loss\": " + json_number(last.heldout_loss) +
       ", \"heldout_accuracy\": " + json_number(last.heldout_accuracy) + ", \"first_nonfinite\": " +
       (last.first_nonfinite < 0 ? std::string("null") : std::to_string(last.first_nonfinite));
  s += ", \"lesion\": {\"base\": " + json_number(les.base);
  const std::pair<const char*, const std::vector<double>*> arrays[] = {{"loss", &les.loss},
                                                                       {"increase", &les.increase},
                                                                       {"relative", &les.relative},
                                                                       {"contribution", &les.contribution},
                                                                       {"contribution_init", &les.contribution_init}};
  for (const auto& [k, v] : arrays) {
    s += std::string(", \"") + k + "\": ";
    append_json_array(s, *v);
  }
  s += "}, \"gates\": ";
  if (gates.width == 0) {
    s += "null";
  } else {
    s += "{\"width\": " + std::to_string(gates.width) + ", \"init\": ";
    append_json_array(s, gates.init);
    s += ", \"magnitude\": ";
    append_json_array(s, gates.magnitude);
    s += ", \"values\": ";
    append_json_array(s, gates.values);
    s += "}";
  }
  s += ", \"dwa\": ";
  if (dwa.empty()) return s + "null}";
  // (L, L + 1) row-major; row l - 1 printed up to its last weight, w_{l,l}
  int L = 0;
  while (static_cast<size_t>(L) * (L + 1) < dwa.size()) ++L;
  s += "[";
  for (int l = 1; l <= L; ++l) {
    s += l > 1 ? ", " : "";
    const auto row = dwa.begin() + static_cast<long>(l - 1) * (L + 1);
    append_json_array(s, std::vector<double>(row, row + l + 1));
  }
  return s + "]}";
}

template class Trainer<float>;
template class Trainer<double>;

}  // namespace resnorm

// resnorm: the native command line over the engine.
//
//   resnorm simulate [--arch a,b,...] [--depth N] ... [--json] [--double] [--export-pytorch FILE]
//   resnorm train [--task reverse] [--arch post_ln,pre_ln] ... [--json] [--double] [--export-pytorch FILE]
//
// The arguments are parsed by args.cpp (which flags, how numbers are written).
// A bad value exits with status 2 and one line on stderr naming the flag, the
// value and the allowed range; nothing is printed on stdout then.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "resnorm/engine.h"
#include "resnorm/export_pytorch.h"
#include "resnorm/trainer.h"

using namespace resnorm;

namespace {

void list_flags(FILE* to, const std::vector<FieldSpec>& specs) {
  for (const FieldSpec& f : specs) {
    const std::string flag = flag_name(f.name);
    std::fprintf(to, "  --%-12s %-34s default %-30s %s\n", flag.c_str(), allowed_text(f).c_str(), f.default_text,
                 f.help);
  }
  std::fprintf(to, "  --json         print JSON instead of a table\n");
}

void list_train_extras(FILE* to) {
  std::fprintf(to, "  --double       train in double instead of float\n");
  std::fprintf(to,
               "  --export-pytorch FILE  write the run as a self-contained PyTorch script first (docs/pytorch.md)\n");
}

int usage(FILE* to, bool train = false) {
  if (train) {
    std::fprintf(to,
                 "usage: resnorm train [flags] [--json] [--double] [--export-pytorch FILE]\n\nflags (all optional):\n");
    list_flags(to, train_field_specs());
    list_train_extras(to);
  } else {
    std::fprintf(to,
                 "usage: resnorm simulate [flags] [--json] [--double] [--export-pytorch FILE]\n       resnorm train "
                 "--help\n\nflags (all optional):\n");
    list_flags(to, field_specs());
    std::fprintf(to, "  --double       simulate in double instead of float\n");
    std::fprintf(to, "  --export-pytorch FILE  write the simulation as a PyTorch script first (docs/pytorch.md)\n");
  }
  std::fprintf(to, "\nnumbers are decimal: 4, -0.5, .5, 1e-3 (no hex, no '+', no spaces)\n");
  return to == stderr ? 2 : 0;
}

int bad(const std::string& message) {
  std::fprintf(stderr, "resnorm: %s\n", message.c_str());
  return 2;
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Every arch of tc side by side, log_every updates at a time: one line (JSON
// or table row) per logged step per arch, then the summary with the lesion study.
// A BatchNorm run's second line per logged step: the held-out loss in the
// three modes, and PowerNorm's distances (the largest over the layers).
void print_batchnorm_line(const TrainLog& g) {
  auto largest = [](const std::vector<double>& v) { return v.empty() ? NAN : *std::max_element(v.begin(), v.end()); };
  std::printf("%8s batchnorm: held-out train mode %.4f, eval mode %.4f, one-seq %.4f; distance mean %.3e, var %.3e\n",
              "", g.heldout_loss_train_mode, g.heldout_loss_eval_mode, g.heldout_loss_one_seq,
              largest(g.bn_mean_distance), largest(g.bn_var_distance));
}

// A script into `path`; 2 with one line on stderr when it cannot be written.
int write_script(const std::string& script, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "wb");
  const bool written = f && std::fwrite(script.data(), 1, script.size(), f) == script.size();
  if (f && std::fclose(f) != 0) return bad("--export-pytorch: cannot write '" + printable(path) + "'");
  if (!written) return bad("--export-pytorch: cannot write '" + printable(path) + "'");
  return 0;
}

// The run of tc (every arch) as a PyTorch script into `path`, from the initial weights.
template <class S>
int export_script(const TrainConfig& tc, const std::string& path) {
  std::string script;
  const Status st = export_pytorch<S>({{tc, {}, {}}}, 0, &script);
  if (!st.ok()) return bad("--export-pytorch: --" + flag_name(st.field) + st.message.substr(st.field.size()));
  return write_script(script, path);
}

template <class S>
int simulate(const Config& cfg, bool json, const std::string& export_path) {
  if (!export_path.empty()) {
    std::string script;
    const Status st = export_pytorch_simulation(cfg, &script);
    if (!st.ok()) return bad("--export-pytorch: --" + flag_name(st.field) + st.message.substr(st.field.size()));
    if (const int rc = write_script(script, export_path)) return rc;
  }
  Engine<S> engine;
  Results res;
  const Status st = engine.simulate(cfg, &res);
  if (!st.ok()) return bad("--" + flag_name(st.field) + st.message.substr(st.field.size()));
  if (json)
    std::printf("%s\n", results_json(res).c_str());
  else
    std::fputs(results_table(res).c_str(), stdout);
  return 0;
}

template <class S>
int train(const TrainConfig& tc, bool json, const std::string& export_path) {
  std::vector<std::unique_ptr<Trainer<S>>> trainers;
  for (Arch a : tc.archs) {
    auto t = std::make_unique<Trainer<S>>();
    const Status st = t->configure(tc, a);
    if (!st.ok()) return bad("--" + flag_name(st.field) + st.message.substr(st.field.size()));
    trainers.push_back(std::move(t));
  }
  if (!export_path.empty())
    if (const int rc = export_script<S>(tc, export_path)) return rc;
  const double chance = trainers[0]->task().chance_loss(), optimal = trainers[0]->task().optimal_loss();
  if (!json) {
    std::printf("train %s\nchance loss %.4f, optimal loss %.4f\n", train_config_text(tc).c_str(), chance, optimal);
    std::printf("%8s %-10s %10s %10s %10s %8s %10s %10s %8s\n", "step", "arch", "lr", "train", "held-out", "acc",
                "grad norm", "out chg", "cosine");
  }
  std::vector<TrainLog> last(trainers.size());
  for (int64_t done = 0; done < tc.steps; done += tc.log_every)
    for (size_t i = 0; i < trainers.size(); ++i)
      for (const TrainLog& g : trainers[i]->step(tc.log_every)) {
        last[i] = g;
        if (json) {
          std::printf("%s\n", train_log_json(tc.archs[i], g).c_str());
          continue;
        }
        std::printf("%8lld %-10s %10.3e %10.4f %10.4f %8.3f %10.3e %10.3e %8.3f%s\n", (long long)g.step,
                    name(tc.archs[i]), g.lr, g.train_loss, g.heldout_loss, g.heldout_accuracy, g.grad_norm_global,
                    g.output_change, g.top_cosine, g.first_nonfinite >= 0 ? "  non-finite: stopped" : "");
        if (batchnorm(tc)) print_batchnorm_line(g);
      }
  Json doc;
  doc.begin_object().key("config").raw(train_config_json(tc));
  doc.key("chance_loss").number(chance).key("optimal_loss").number(optimal).key("summary").begin_object();
  for (size_t i = 0; i < trainers.size(); ++i) {
    const Lesion les = trainers[i]->lesion();
    if (json) {
      doc.key(name(tc.archs[i]))
          .raw(train_summary_json(last[i], les, trainers[i]->gates(), trainers[i]->dwa_weights(), chance, optimal,
                                  trainers[i]->attn_res_weights(), tc.attn_res_blocks));
      continue;
    }
    const double mx = les.increase.empty() ? NAN : *std::max_element(les.increase.begin(), les.increase.end());
    std::printf(
        "%-10s %s after %lld steps: held-out loss %.4f; lesion: one block skipped raises it by %.4f (median), "
        "%.4f (max)\n",
        name(tc.archs[i]), outcome(last[i], chance, optimal), (long long)last[i].step, last[i].heldout_loss,
        median(les.increase), mx);
  }
  if (json) std::printf("%s\n", doc.end_object().end_object().str().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const CliRequest req = parse_args(argc, argv);
  switch (req.kind) {
    case CliRequest::usage_error: return usage(stderr);
    case CliRequest::help: return usage(stdout, req.train_help);
    case CliRequest::error: return bad(req.message);
    case CliRequest::train:
      return req.double_precision ? train<double>(req.train_cfg, req.json, req.export_pytorch)
                                  : train<float>(req.train_cfg, req.json, req.export_pytorch);
    case CliRequest::simulate: break;
  }
  return req.double_precision ? simulate<double>(req.cfg, req.json, req.export_pytorch)
                              : simulate<float>(req.cfg, req.json, req.export_pytorch);
}

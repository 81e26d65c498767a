// What training reports: the logs, the lesion study and the gates by name, how
// a run ended, and the CLI's JSON lines (see train_results.h).
#include "resnorm/train_results.h"

#include <cmath>

namespace resnorm {

std::vector<NamedScalar> named_scalars(const TrainLog& g) {
  return {{"step", double(g.step)},
          {"lr", g.lr},
          {"train_loss", g.train_loss},
          {"heldout_loss", g.heldout_loss},
          {"heldout_accuracy", g.heldout_accuracy},
          {"grad_norm_global", g.grad_norm_global},
          {"output_change", g.output_change},
          {"top_cosine", g.top_cosine},
          {"heldout_loss_train_mode", g.heldout_loss_train_mode},
          {"heldout_loss_eval_mode", g.heldout_loss_eval_mode},
          {"heldout_loss_one_seq", g.heldout_loss_one_seq},
          {"max_logit", g.max_logit},
          {"hc_gain_fwd", g.hc_gain_fwd},
          {"hc_gain_bwd", g.hc_gain_bwd}};
}

std::vector<NamedArray> named_arrays(const TrainLog& g) {
  return {{"grad_norm", &g.grad_norm},
          {"stream_rms", &g.stream_rms},
          {"w_grad_norm", &g.w_grad_norm},
          {"update_ratio", &g.update_ratio},
          {"contribution", &g.contribution},
          {"bn_mean_distance", &g.bn_mean_distance},
          {"bn_var_distance", &g.bn_var_distance}};
}

std::vector<NamedArray> named_arrays(const Lesion& les) {
  return {{"loss", &les.loss},
          {"increase", &les.increase},
          {"relative", &les.relative},
          {"contribution", &les.contribution},
          {"contribution_init", &les.contribution_init}};
}

std::vector<NamedArray> named_arrays(const Gates& g) {
  return {{"init", &g.init}, {"magnitude", &g.magnitude}, {"values", &g.values}};
}

const char* outcome(const TrainLog& last, double chance, double optimal) {
  if (last.first_nonfinite >= 0 || !std::isfinite(last.heldout_loss) || last.heldout_loss > 1.5 * chance)
    return "diverged";
  if (last.heldout_loss <= optimal + 0.5 * (chance - optimal)) return "trained";
  if (last.top_cosine > 0.99 && last.heldout_loss >= 0.9 * chance) return "collapsed";
  return "slow";
}

std::string train_log_json(Arch arch, const TrainLog& g) {
  Json j;
  j.begin_object().key("arch").string(name(arch)).scalars(named_scalars(g)).arrays(named_arrays(g));
  return j.key("first_nonfinite").integer_or_null(g.first_nonfinite).end_object().str();
}

std::string train_summary_json(const TrainLog& last, const Lesion& les, const Gates& gates,
                               const std::vector<double>& dwa, double chance, double optimal,
                               const std::vector<double>& attn_res, int attn_res_blocks) {
  Json j;
  j.begin_object().key("steps").integer(last.step).key("outcome").string(outcome(last, chance, optimal));
  j.key("train_loss").number(last.train_loss).key("heldout_loss").number(last.heldout_loss);
  j.key("heldout_accuracy").number(last.heldout_accuracy).key("first_nonfinite").integer_or_null(last.first_nonfinite);
  j.key("lesion").begin_object().key("base").number(les.base).arrays(named_arrays(les)).end_object();
  j.key("gates");
  if (gates.width == 0)
    j.null();
  else
    j.begin_object().key("width").integer(gates.width).arrays(named_arrays(gates)).end_object();
  // (L, L + 1) row-major; row l - 1 written up to its last weight, w_{l,l}
  auto lower = [&j](const std::vector<double>& m) {
    int L = 0;
    while (static_cast<size_t>(L) * (L + 1) < m.size()) ++L;
    j.begin_array();
    for (int l = 1; l <= L; ++l) {
      const auto row = m.begin() + static_cast<long>(l - 1) * (L + 1);
      j.array(std::vector<double>(row, row + l + 1));
    }
    j.end_array();
  };
  j.key("dwa");
  if (dwa.empty())
    j.null();
  else
    lower(dwa);
  if (!attn_res.empty()) {
    j.key("attn_res");
    // Block AttnRes: (K, N + 1), row k - 1 over h_0 and blocks 1..B(k), B(k) = floor((k - 1) N / K) + 1.
    const long N = attn_res_blocks;
    const long K = N > 0 && attn_res.size() % (N + 1) == 0 ? static_cast<long>(attn_res.size()) / (N + 1) : 0;
    if (K > N) {
      j.begin_array();
      for (long k = 1; k <= K; ++k) {
        const auto row = attn_res.begin() + (k - 1) * (N + 1);
        j.array(std::vector<double>(row, row + (k - 1) * N / K + 2));
      }
      j.end_array();
    } else {
      lower(attn_res);
    }
  }
  return j.end_object().str();
}

}  // namespace resnorm

// nGPT (see ngpt.h): Norm and its backward, the unit on the sphere forward
// next to its backward and its path term, the scaled queries and keys, and
// the normalization of the weights.
#include "resnorm/ngpt.h"

#include <algorithm>
#include <cmath>

#include "resnorm/model.h"

namespace resnorm {

// y_i = x_i / r_i, r_i = max(||x_i||, tiny)  (rows, n)
template <class S>
void sphere_forward(S* y, S* r, const S* x, long rows, int n) {
  for (long t = 0; t < rows; ++t) {
    const S* xt = x + t * n;
    S* yt = y + t * n;
    const S rt = S(std::max(std::sqrt(sq_norm(xt, n)), kSphereTiny));
    r[t] = rt;
    for (int i = 0; i < n; ++i) yt[i] = xt[i] / rt;
  }
}

// dx_i += (dy_i - y_i (y_i . dy_i)) / r_i, y_i = x_i / r_i as the forward computed it.
template <class S>
void sphere_backward(S* dx, const S* dy, const S* x, const S* r, long rows, int n) {
  for (long t = 0; t < rows; ++t) {
    const S* xt = x + t * n;
    const S* gt = dy + t * n;
    S* dt = dx + t * n;
    const S rt = r[t];
    double dot = 0;
    for (int i = 0; i < n; ++i) dot += double(xt[i] / rt) * double(gt[i]);
    const S c = S(dot);
    for (int i = 0; i < n; ++i) dt[i] += (gt[i] - (xt[i] / rt) * c) / rt;
  }
}

template <class S>
void normalize_unit(S* w, long rows, long cols, bool by_rows) {
  if (by_rows) {
    for (long i = 0; i < rows; ++i) {
      S* row = w + i * cols;
      const S r = S(std::max(std::sqrt(sq_norm(row, cols)), kSphereTiny));
      for (long j = 0; j < cols; ++j) row[j] /= r;
    }
    return;
  }
  for (long j = 0; j < cols; ++j) {
    double sq = 0;
    for (long i = 0; i < rows; ++i) sq += double(w[i * cols + j]) * double(w[i * cols + j]);
    const S r = S(std::max(std::sqrt(sq), kSphereTiny));
    for (long i = 0; i < rows; ++i) w[i * cols + j] /= r;
  }
}

// out (H, T, dh) = c s_h * raw / ||raw|| per row; s_h = s + h dh (dh entries).
template <class S>
void sphere_scale_forward(S* out, S* r, const S* raw, const S* s, double c, int H, int T, int dh) {
  sphere_forward(out, r, raw, static_cast<long>(H) * T, dh);
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t) {
      S* o = out + (static_cast<long>(h) * T + t) * dh;
      for (int i = 0; i < dh; ++i) o[i] *= S(c * double(s[h * dh + i]));
    }
}

// n = raw / r;  ds_h += c sum_t dout n  (double);  dn = c s_h dout;  draw = (dn - n (n . dn)) / r.
template <class S>
void sphere_scale_backward(S* draw, S* ds, const S* dout, const S* raw, const S* r, const S* s, double c, int H, int T,
                           int dh) {
  for (int h = 0; h < H; ++h)
    for (int i = 0; ds && i < dh; ++i) {
      double sum = 0;
      for (int t = 0; t < T; ++t) {
        const long at = (static_cast<long>(h) * T + t) * dh + i;
        sum += double(dout[at]) * double(raw[at] / r[static_cast<long>(h) * T + t]);
      }
      ds[h * dh + i] += S(c * sum);
    }
  for (int h = 0; h < H; ++h)  // dn into draw
    for (int t = 0; t < T; ++t) {
      const long row = static_cast<long>(h) * T + t;
      for (int i = 0; i < dh; ++i) draw[row * dh + i] = S(c * double(s[h * dh + i])) * dout[row * dh + i];
    }
  // then the sphere's backward from dn, in place, row by row
  for (long row = 0; row < static_cast<long>(H) * T; ++row) {
    S* d = draw + row * dh;
    const S* x = raw + row * dh;
    const S rt = r[row];
    double dot = 0;
    for (int i = 0; i < dh; ++i) dot += double(x[i] / rt) * double(d[i]);
    const S cd = S(dot);
    for (int i = 0; i < dh; ++i) d[i] = (d[i] - (x[i] / rt) * cd) / rt;
  }
}

// a = Norm(h);  b = Norm(f(a));  gated = alpha (b - a);  sum = a + gated;  h' = Norm(sum).
template <class S>
void Model<S>::forward_sphere(Unit<S>& u, S* hout, const S* hin) {
  const int T = T_, d = d_;
  const long n = static_cast<long>(T) * d;
  sphere_forward(u.normed_in.data(), u.r_in.data(), hin, T, d);
  u.f->forward(u.branch_raw.data(), u.normed_in.data());
  sphere_forward(u.branch.data(), u.r_branch.data(), u.branch_raw.data(), T, d);
  const S* a = u.normed_in.data();
  const S* b = u.branch.data();
  S* g = u.gated.data();
  S* sum = u.sum.data();
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < d; ++i) {
      const long at = static_cast<long>(t) * d + i;
      g[at] = u.step(i) * (b[at] - a[at]);
      sum[at] = a[at] + g[at];
    }
  sphere_forward(hout, u.r_sum.data(), sum, T, d);
  if (train_) return;
  const double num = std::sqrt(sq_norm(g, n)), den = std::sqrt(sq_norm(a, n));
  u.update_ratio = (num == 0 && den == 0) ? 0.0 : num / den;
}

// dsum = J_Norm(sum)^T dh';  dalpha_s(i) += ka sign(alpha_s(i)) sum_t dsum (b - a);
// db = alpha dsum;  da = (1 - alpha) dsum + f'^T J_Norm(f)^T db;  dh += J_Norm(h)^T da.
template <class S>
void Model<S>::backward_sphere(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize) {
  const int T = T_, d = d_;
  const S* a = u.normed_in.data();
  const S* b = u.branch.data();
  dsum_.setZero();
  sphere_backward(dsum_.data(), dhout, u.sum.data(), u.r_sum.data(), T, d);
  const S* dsum = dsum_.data();
  for (int i = 0; i < d; ++i) {
    double acc = 0;
    for (int t = 0; t < T; ++t) {
      const long at = static_cast<long>(t) * d + i;
      acc += double(dsum[at]) * (double(b[at]) - double(a[at]));
    }
    const double sign = u.alpha(i) > S(0) ? 1.0 : u.alpha(i) < S(0) ? -1.0 : 0.0;
    u.dalpha(i) += S(acc * u.alpha_factor * sign);
  }
  S* db = dungated_.data();
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < d; ++i) db[static_cast<long>(t) * d + i] = u.step(i) * dsum[static_cast<long>(t) * d + i];
  dbranch_raw_.setZero();
  sphere_backward(dbranch_raw_.data(), db, u.branch_raw.data(), u.r_branch.data(), T, d);
  u.f->backward(dbranch_in_.data(), dbranch_raw_.data(), a, materialize);
  S* da = dbranch_in_.data();
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < d; ++i) {
      const long at = static_cast<long>(t) * d + i;
      da[at] += (S(1) - u.step(i)) * dsum[at];
    }
  sphere_backward(dhin, da, hin, u.r_in.data(), T, d);
}

// One route of backward_sphere(), input gradients only: through the branch
// (J_Norm(h)^T f'^T J_Norm(f)^T alpha dsum) or the skip (J_Norm(h)^T (1 - alpha) dsum).
template <class S>
void Model<S>::path_sphere(Unit<S>& u, S* next, const S* g, const S* hin, bool through_branch) {
  const int T = T_, d = d_;
  const long n = static_cast<long>(T) * d;
  dsum_.setZero();
  sphere_backward(dsum_.data(), g, u.sum.data(), u.r_sum.data(), T, d);
  const S* dsum = dsum_.data();
  S* da = dbranch_in_.data();
  if (through_branch) {
    S* db = dungated_.data();
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < d; ++i) db[static_cast<long>(t) * d + i] = u.step(i) * dsum[static_cast<long>(t) * d + i];
    dbranch_raw_.setZero();
    sphere_backward(dbranch_raw_.data(), db, u.branch_raw.data(), u.r_branch.data(), T, d);
    u.f->backward_input(da, dbranch_raw_.data(), u.normed_in.data());
  } else {
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < d; ++i) {
        const long at = static_cast<long>(t) * d + i;
        da[at] = (S(1) - u.step(i)) * dsum[at];
      }
  }
  std::fill(next, next + n, S(0));
  sphere_backward(next, da, hin, u.r_in.data(), T, d);
}

template void sphere_forward(float*, float*, const float*, long, int);
template void sphere_forward(double*, double*, const double*, long, int);
template void sphere_backward(float*, const float*, const float*, const float*, long, int);
template void sphere_backward(double*, const double*, const double*, const double*, long, int);
template void normalize_unit(float*, long, long, bool);
template void normalize_unit(double*, long, long, bool);
template void sphere_scale_forward(float*, float*, const float*, const float*, double, int, int, int);
template void sphere_scale_forward(double*, double*, const double*, const double*, double, int, int, int);
template void sphere_scale_backward(float*, float*, const float*, const float*, const float*, const float*, double, int,
                                    int, int);
template void sphere_scale_backward(double*, double*, const double*, const double*, const double*, const double*,
                                    double, int, int, int);
template void Model<float>::forward_sphere(Unit<float>&, float*, const float*);
template void Model<double>::forward_sphere(Unit<double>&, double*, const double*);
template void Model<float>::backward_sphere(Unit<float>&, float*, const float*, const float*, bool);
template void Model<double>::backward_sphere(Unit<double>&, double*, const double*, const double*, bool);
template void Model<float>::path_sphere(Unit<float>&, float*, const float*, const float*, bool);
template void Model<double>::path_sphere(Unit<double>&, double*, const double*, const double*, bool);

}  // namespace resnorm

// DyT's forward next to its backward (see norms.h).
#include "resnorm/norms.h"
#include "resnorm/portable_math.h"

namespace resnorm {

template <class S>
void dyt_forward(S* y, const S* x, S alpha, const S* gamma, const S* beta, int T, int d) {
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    S* yt = y + static_cast<long>(t) * d;
    for (int i = 0; i < d; ++i) yt[i] = gamma[i] * portable::tanh_of(alpha * xt[i]) + beta[i];
  }
}

template <class S>
void dyt_backward(S* dx, S* dgamma, S* dbeta, S* dalpha, const S* dy, const S* x, S alpha, const S* gamma, int T,
                  int d) {
  double da = 0;
  for (int t = 0; t < T; ++t) {
    const long at = static_cast<long>(t) * d;
    for (int i = 0; i < d; ++i) {
      const S u = portable::tanh_of(alpha * x[at + i]);
      const S s = S(1) - u * u;
      const S g = dy[at + i] * gamma[i];
      dx[at + i] += alpha * s * g;
      if (dgamma) dgamma[i] += dy[at + i] * u;
      if (dbeta) dbeta[i] += dy[at + i];
      if (dalpha) da += double(x[at + i]) * double(s) * double(g);
    }
  }
  if (dalpha) dalpha[0] += S(da);
}

template void dyt_forward(float*, const float*, float, const float*, const float*, int, int);
template void dyt_forward(double*, const double*, double, const double*, const double*, int, int);
template void dyt_backward(float*, float*, float*, float*, const float*, const float*, float, const float*, int, int);
template void dyt_backward(double*, double*, double*, double*, const double*, const double*, double, const double*, int,
                           int);

}  // namespace resnorm

// Norm<S>: one norm of the stack over the LayerNorm and RMSNorm kernels of norms.h.
#include "resnorm/norms.h"

namespace resnorm {

template <class S>
void Norm<S>::resize(NormKind k, int T, int d) {
  kind = k;
  if (k == NormKind::none) return;
  for (VecWorkspace<S>* v : {&gamma, &beta, &dgamma, &dbeta}) v->resize(d);
  gamma.setOnes();
  beta.setZero();
  dgamma.setZero();
  dbeta.setZero();
  mean.resize(T);
  rstd.resize(T);
}

template <class S>
void Norm<S>::forward(S* y, const S* x, int T, int d) {
  if (kind == NormKind::layernorm)
    layernorm_forward(y, mean.data(), rstd.data(), x, gamma.data(), beta.data(), T, d);
  else
    rmsnorm_forward(y, rstd.data(), x, gamma.data(), T, d);
}

template <class S>
void Norm<S>::backward(S* dx, const S* dy, const S* x, int T, int d) {
  if (kind == NormKind::layernorm)
    layernorm_backward(dx, dgamma.data(), dbeta.data(), dy, x, gamma.data(), mean.data(), rstd.data(), T, d);
  else
    rmsnorm_backward(dx, dgamma.data(), dy, x, gamma.data(), rstd.data(), T, d);
}

template <class S>
void Norm<S>::backward_input(S* dx, const S* dy, const S* x, int T, int d) const {
  if (kind == NormKind::layernorm)
    layernorm_backward<S>(dx, nullptr, nullptr, dy, x, gamma.data(), mean.data(), rstd.data(), T, d);
  else
    rmsnorm_backward<S>(dx, nullptr, dy, x, gamma.data(), rstd.data(), T, d);
}

template <class S>
void Norm<S>::zero_grad() {
  if (kind == NormKind::none) return;
  dgamma.setZero();
  dbeta.setZero();
}

template struct Norm<float>;
template struct Norm<double>;

}  // namespace resnorm

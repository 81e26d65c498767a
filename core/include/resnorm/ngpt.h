// resnorm/ngpt.h: nGPT, the normalized Transformer (Loshchilov, Hsieh, Sun,
// Ginsburg, "nGPT: Normalized Transformer with Representation Learning on
// the Hypersphere", ICLR 2025, arXiv 2410.01131), the ngpt architecture.
//
// Norm(x) = x / ||x|| row by row (over the d features of a token, or the dh
// of a head's query or key). A unit of the stack (model.h) with the sphere
// wrapping computes, with its caches named as in Unit:
//   normed_in  a = Norm(h)                                (T, d)
//   branch_raw f(a)                                      (T, d)
//   branch     b = Norm(f(a))                            (T, d)   the paper's h_A, h_M
//   gated      alpha (b - a), alpha = |alpha_s| ka       (T, d)   alpha (d) per channel
//   sum        a + alpha (b - a)                         (T, d)
//   h'         Norm(sum)                                 (T, d)
// the paper's h <- Norm(h + alpha_A (h_A - h)) for attention and the same
// with alpha_M for the MLP (Section 2.2.2). a = Norm(h) is the identity
// for every unit but the first (its input is on the sphere already), as in
// the reference code (NVIDIA/ngpt, model.py: A_norm = justnorm(h)); it puts
// the first unit's input, the embedding plus the position, on the sphere.
// alpha is stored in the paper's scaled parametrisation (Section 2.5): the
// stored alpha_s starts at alpha_scale = 1 / sqrt(d) and alpha = |alpha_s|
// alpha_init / alpha_scale (ka = alpha_init sqrt(d)), so alpha starts at
// alpha_init (Config::ngpt_alpha, the paper's 0.05) and Adam moves the
// effective alpha ka times faster than its stored value; the absolute value
// is the reference code's (torch.abs(lr)).
// Attention (attention.h, Section 2.3.2): every head's query and key rows
// q <- s_qk Norm(q), k <- s_qk Norm(k), the same s_qk (d, head h's dh
// entries at h dh, as the reference code's sqk viewed per head) for both,
// stored as alpha is: s_qk = s_stored sqrt(d), s_stored 1 / sqrt(d) at init
// (s_qk,init = 1, s_qk,scale = 1 / sqrt(d)); the scores are q k^T sqrt(dh)
// instead of q k^T / sqrt(dh).
// MLP (mlp.h, Section 2.4.2): the paper's MLP is gated, u * SiLU(nu), with
// u <- s_u u and nu <- s_nu sqrt(d) nu. Ours is phi(x W1) W2 with no gated
// product: x W1 plays nu, the activation's input, and is scaled as nu is,
// pre <- s_v sqrt(d) (x W1), s_v (m) stored at 1 (s_nu,init = s_nu,scale =
// 1). s_u has nothing to scale here and is left out.
// Logits (network.h, Section 2.1): z = s_z (out U), s_z (V) stored as s_qk
// is (s_z,init = 1, s_z,scale = 1 / sqrt(d)).
// Weights (Section 2.6): every vector along the embedding dimension has unit
// norm, at init and after every optimizer step (normalize_sphere()): the
// columns of W_Q, W_K, W_V and W1 (d, .), the rows of W_O and W2 (., d), the
// rows of the embedding and of the learned positions (V, d), (T, d), the
// columns of the unembedding U (d, V). None of them takes weight decay
// (optim.h), and the stack has no norm layer. The simulation (which never
// changes a weight) scales the shared Gaussian base weights to entries of
// variance 1 / d instead, so each such vector has norm 1 in expectation, not
// exactly (recipes.cpp); training normalizes them exactly.
// What is not the paper's: positions are the engine's (learned or
// sinusoidal, added to the embedding; sinusoidal rows scaled to unit norm),
// not RoPE; the teacher task's readout w (d) is a vector product with no s_z.
#pragma once

#include <cmath>

namespace resnorm {

// alpha_init / alpha_scale with alpha_scale = 1 / sqrt(d): stored alpha times this is alpha.
inline double ngpt_alpha_factor(double alpha_init, int d) { return alpha_init * std::sqrt(double(d)); }
// s_qk's and s_z's init / scale, 1 / (1 / sqrt(d)): stored times this is the scale used.
inline double ngpt_scale_factor(int d) { return std::sqrt(double(d)); }
// The stored init of alpha, s_qk and s_z: their scale, 1 / sqrt(d).
inline double ngpt_stored_init(int d) { return 1.0 / std::sqrt(double(d)); }
// A row of norm at most this is divided by it instead (a zero row stays zero, as F.normalize's eps).
inline constexpr double kSphereTiny = 1e-30;

// y = Norm(x) over `rows` rows of n (contiguous), r[i] = ||x_i|| (at least
// kSphereTiny), each norm summed in double. y may be x.
template <class S>
void sphere_forward(S* y, S* r, const S* x, long rows, int n);
// dx += (dy - y (y . dy)) / r per row, the Jacobian of Norm transposed, with
// y = x / r computed again from the forward's input x and norms r (y . dy in double).
template <class S>
void sphere_backward(S* dx, const S* dy, const S* x, const S* r, long rows, int n);

// A (rows, cols) row-major matrix's rows (by_rows) or columns scaled to unit
// norm, each norm in double: what normalize_sphere() does to a parameter.
template <class S>
void normalize_unit(S* w, long rows, long cols, bool by_rows);

// Attention's q or k on the sphere (head-major (H, T, dh)):
// out[h][t][i] = c s[h dh + i] raw[h][t][i] / ||raw[h][t]||, r (H T) the norms.
template <class S>
void sphere_scale_forward(S* out, S* r, const S* raw, const S* s, double c, int H, int T, int dh);
// Its backward: draw = J^T dout (written), ds[h dh + i] += c sum_t dout n
// when ds is given (n = raw / r, recomputed), in double.
template <class S>
void sphere_scale_backward(S* draw, S* ds, const S* dout, const S* raw, const S* r, const S* s, double c, int H, int T,
                           int dh);

}  // namespace resnorm

//! The decoder's hot loop: the integer products of a weight row's 32-value
//! blocks with an activation's, one `i32` per block (the float scaling that
//! follows is llama.cpp's, block by block, in `blocks::BlockMatrix::row_dot`).
//! wasm `simd128` where it is compiled in, plain loops elsewhere; both give
//! the same sums.
//!
//! [`shifted_block_sums`] reads unsigned bytes that stand for their value
//! plus 16 (Q5_0's): the sum of `(q + 16)·x` less `16 · Σ x`, which gives
//! the signed bytes' sums exactly, while the relaxed-SIMD build can take the
//! unsigned bytes as its dot product's 7-bit operand.
//!
//! [`nibble_row_by_four`], [`byte_row_by_four`], [`shifted_row_by_four`] and [`wide_row_by_four`] are
//! a prompt's form of it: a row's products with four tokens at once, each
//! block loaded (and unpacked) once for the four, the integer sums gathered
//! one token a lane and scaled there, each token's blocks summed in block
//! order — the float steps of `row_dot`, so each product is bit for bit the
//! one a token alone gets.

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod portable;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use portable::{
    block_sums, byte_row_by_four, nibble_block_sums, nibble_row_by_four, shifted_block_sums,
    shifted_row_by_four, wide_block_sums, wide_row_by_four,
};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd128::{
    block_sums, byte_row_by_four, nibble_block_sums, nibble_row_by_four, shifted_block_sums,
    shifted_row_by_four, wide_block_sums, wide_row_by_four,
};

/// What the values [`shifted_block_sums`] reads have added to them.
pub const SHIFT: i32 = 16;

/// A weight row of 32-value blocks with each block's scale and, when it has
/// them, offsets. Its values `T`: `u8` for 4-bit blocks (sixteen bytes a
/// block, value `j` in byte `j`'s low half and value `j + 16` in its high
/// half), `i8` or `i16` for one value each.
pub struct WeightRow<'a, T> {
    /// The values, block by block.
    pub quants: &'a [T],
    /// One scale a block.
    pub scales: &'a [f32],
    /// One offset a block, if any.
    pub offsets: Option<&'a [f32]>,
}

/// Four tokens' quantised activations: each one's values (32 a block), and
/// each block's scales, `scale · Σ q` sums and `Σ q` totals interleaved,
/// four a block (token `t`'s of block `b` at `4b + t`).
pub struct FourTokens<'a> {
    /// Each token's values.
    pub quants: [&'a [i8]; 4],
    /// The blocks' scales, `[4b + t]`.
    pub scales: &'a [f32],
    /// The blocks' sums, `[4b + t]`.
    pub sums: &'a [f32],
    /// The blocks' integer totals `Σ q`, `[4b + t]`.
    pub totals: &'a [i32],
}

impl<T> WeightRow<'_, T> {
    /// Whether the row holds `blocks` blocks of `per_block` values each, and
    /// the four tokens as many blocks of theirs (the kernels' bounds).
    pub(crate) fn fits(&self, x: &FourTokens<'_>, per_block: usize) -> bool {
        let blocks = self.scales.len();
        self.quants.len() >= blocks * per_block
            && x.scales.len() >= blocks * 4
            && x.sums.len() >= blocks * 4
            && x.totals.len() >= blocks * 4
            && self.offsets.is_none_or(|o| o.len() >= blocks)
            && x.quants.iter().all(|q| q.len() >= blocks * 32)
    }
}

//! [`block_sums`] in plain loops (which the compiler vectorises).

/// `out[b] = Σ w[32b + i] · x[32b + i]` for every block `b` of `out`.
pub fn block_sums(w: &[i8], x: &[i8], out: &mut [i32]) {
    for ((w, x), sum) in w.chunks_exact(32).zip(x.chunks_exact(32)).zip(out.iter_mut()) {
        let (w, x): (&[i8; 32], &[i8; 32]) = (w.try_into().expect("32"), x.try_into().expect("32"));
        let mut total = 0i32;
        for i in 0..32 {
            total += w[i] as i32 * x[i] as i32;
        }
        *sum = total;
    }
}

/// [`block_sums`] of 4-bit weights, sixteen bytes a block (value `j` in byte
/// `j`'s low half, value `j + 16` in its high half).
pub fn nibble_block_sums(w: &[u8], x: &[i8], out: &mut [i32]) {
    for ((w, x), sum) in w.chunks_exact(16).zip(x.chunks_exact(32)).zip(out.iter_mut()) {
        let (w, x): (&[u8; 16], &[i8; 32]) = (w.try_into().expect("16"), x.try_into().expect("32"));
        let mut total = 0i32;
        for j in 0..16 {
            total += (w[j] & 0x0f) as i32 * x[j] as i32 + (w[j] >> 4) as i32 * x[j + 16] as i32;
        }
        *sum = total;
    }
}

/// [`nibble_block_sums`] of one weight row with `tokens` activations (`x(t)`), into
/// `out[t · blocks + b]`.
pub fn nibble_block_sums_each<'a>(w: &[u8], tokens: usize, x: impl Fn(usize) -> &'a [i8], out: &mut [i32]) {
    let blocks = w.len() / 16;
    for t in 0..tokens {
        nibble_block_sums(w, x(t), &mut out[t * blocks..(t + 1) * blocks]);
    }
}

/// [`block_sums`] of 16-bit weights (Q6_K's values times their sub-block scales).
pub fn wide_block_sums(w: &[i16], x: &[i8], out: &mut [i32]) {
    for ((w, x), sum) in w.chunks_exact(32).zip(x.chunks_exact(32)).zip(out.iter_mut()) {
        *sum = w.iter().zip(x).map(|(w, x)| *w as i32 * *x as i32).sum();
    }
}

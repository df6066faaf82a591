//! The local decoder's block products against their definition, for every
//! weight layout (8-bit, 4-bit with offsets, 16-bit) and both input
//! quantisations: run natively (plain loops) and in Chromium (the simd128
//! kernels), so both kernels are held to the same sums.

use lectern::generation::batch::Batch;
use lectern::generation::blocks::{Activation, BlockMatrix, Input, Quants, BLOCK};

/// A deterministic stream of numbers in `0..1` (the attention test's too).
pub struct Numbers(pub u64);

impl Numbers {
    /// The next number, in `0..1`.
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The next number as an integer in `low..=high`.
    pub fn int(&mut self, low: i32, high: i32) -> i32 {
        low + (self.next() * (high - low + 1) as f64) as i32
    }

    /// The next number in `-1..1`, as an `f32`.
    pub fn signed(&mut self) -> f32 {
        (self.next() * 2.0 - 1.0) as f32
    }
}

const ROWS: usize = 5;
const COLS: usize = 512;

fn matrix(numbers: &mut Numbers, quants: Quants, offsets: bool, input: Input) -> BlockMatrix {
    let blocks = ROWS * COLS / BLOCK;
    BlockMatrix {
        rows: ROWS,
        cols: COLS,
        scales: (0..blocks).map(|_| numbers.next() as f32 * 0.01).collect(),
        offsets: offsets.then(|| (0..blocks).map(|_| -(numbers.next() as f32) * 0.02).collect()),
        quants,
        input,
    }
}

/// The layouts the decoder reads, each with the input its products take.
fn matrices(numbers: &mut Numbers) -> Vec<(&'static str, BlockMatrix)> {
    let n = ROWS * COLS;
    let bytes = Quants::Bytes((0..n).map(|_| numbers.int(-127, 127) as i8).collect());
    let nibbles = Quants::Nibbles((0..n / 2).map(|_| numbers.int(0, 255) as u8).collect());
    let nibbles_k = Quants::Nibbles((0..n / 2).map(|_| numbers.int(0, 255) as u8).collect());
    let wide = Quants::Wide((0..n).map(|_| numbers.int(-4096, 4064) as i16).collect());
    let shifted = Quants::Shifted((0..n).map(|_| numbers.int(0, 31) as u8).collect());
    vec![
        ("8-bit, Q8_1 input", matrix(numbers, bytes, false, Input::Q8_1)),
        (
            "5-bit shifted, Q8_1 input",
            matrix(numbers, shifted, false, Input::Q8_1),
        ),
        (
            "4-bit with offsets, Q8_1 input",
            matrix(numbers, nibbles, true, Input::Q8_1),
        ),
        (
            "4-bit with offsets, Q8_K input",
            matrix(numbers, nibbles_k, true, Input::Q8K),
        ),
        ("16-bit, Q8_K input", matrix(numbers, wide, false, Input::Q8K)),
    ]
}

/// Value `i` of row `row` as the integer `q` of `scale · q + offset`.
fn quant(m: &BlockMatrix, row: usize, i: usize) -> i64 {
    let at = row * m.cols + i;
    match &m.quants {
        Quants::Bytes(q) => q[at] as i64,
        Quants::Wide(q) => q[at] as i64,
        Quants::Shifted(q) => q[at] as i64 - 16,
        Quants::Nibbles(q) => {
            let (block, j) = (at / BLOCK, at % BLOCK);
            let byte = q[block * BLOCK / 2 + j % (BLOCK / 2)];
            (if j < BLOCK / 2 { byte & 0x0f } else { byte >> 4 }) as i64
        }
    }
}

/// `Σ_b (scale_b · d_b) · Σ q·xq + offset_b · s_b`, in f64.
fn definition(m: &BlockMatrix, row: usize, x: &Activation) -> f64 {
    let per_row = m.cols / BLOCK;
    (0..per_row)
        .map(|b| {
            let block = row * per_row + b;
            let sum: i64 = (0..BLOCK)
                .map(|i| quant(m, row, b * BLOCK + i) * x.quants[b * BLOCK + i] as i64)
                .sum();
            let offset = m
                .offsets
                .as_ref()
                .map_or(0.0, |o| o[block] as f64 * x.sums[b] as f64);
            m.scales[block] as f64 * x.scales[b] as f64 * sum as f64 + offset
        })
        .sum()
}

fn activation(numbers: &mut Numbers, input: Input) -> Activation {
    let values: Vec<f32> = (0..COLS).map(|_| (numbers.next() as f32 - 0.5) * 8.0).collect();
    let mut x = Activation::default();
    match input {
        Input::Q8_1 => x.quantise(&values),
        Input::Q8K => x.quantise_k(&values),
    }
    x
}

/// Tokens in a batch: a group of four (read four at a time) and two more.
const TOKENS: usize = 6;

/// Every layout's `apply` and batch products ([`Batch`], six tokens) equal
/// the definition within float rounding (1e-4, relative), and each batch
/// product is the one its token alone gets from `row_dot`, bit for bit (the
/// four-token kernel keeps its float steps and their order).
pub fn block_products_are_their_definition() {
    let mut numbers = Numbers(7);
    for (name, m) in matrices(&mut numbers) {
        let xs: Vec<Activation> = (0..TOKENS).map(|_| activation(&mut numbers, m.input)).collect();
        let mut applied = vec![0.0; ROWS];
        m.apply(&xs[0], &mut applied);
        let mut sums = vec![0; COLS / BLOCK];
        let batch = Batch::new(&xs);
        for (row, applied) in applied.iter().enumerate() {
            let mut each = [f32::NAN; TOKENS];
            batch.row_products(&m, row, &mut sums, |t, product| each[t] = product);
            for (t, x) in xs.iter().enumerate() {
                let expected = definition(&m, row, x);
                let close = |got: f32| (got as f64 - expected).abs() <= 1e-4 * expected.abs().max(1.0);
                assert!(
                    close(each[t]),
                    "{name}, row {row}, token {t}: {} vs {expected}",
                    each[t]
                );
                let alone = m.row_dot(row, x, &mut sums);
                assert_eq!(
                    each[t].to_bits(),
                    alone.to_bits(),
                    "{name}, row {row}, token {t}: in a batch {} alone {alone}",
                    each[t]
                );
                if t == 0 {
                    assert!(
                        close(*applied),
                        "{name}, row {row}: apply gave {applied} vs {expected}"
                    );
                }
            }
        }
    }
}

/// Q8_1 as llama.cpp's `quantize_row_q8_1_ref` writes it, value by value:
/// `d = max|x| / 127`, `q = roundf(x · (1/d))` (halves away from zero), `d`
/// and `d · Σ q` as half floats.
fn q8_1_reference(values: &[f32]) -> (Vec<i8>, Vec<f32>, Vec<f32>) {
    let (mut quants, mut scales, mut sums) = (Vec::new(), Vec::new(), Vec::new());
    for block in values.chunks_exact(BLOCK) {
        let mut amax = 0.0f32;
        for v in block {
            amax = amax.max(v.abs());
        }
        let d = amax / 127.0;
        let inverse = if d != 0.0 { 1.0 / d } else { 0.0 };
        let mut total = 0i32;
        for v in block {
            let x = v * inverse;
            let whole = x.trunc();
            let rounded = if (x - whole).abs() >= 0.5 {
                whole + x.signum()
            } else {
                whole
            };
            let q = rounded as i8;
            quants.push(q);
            total += q as i32;
        }
        scales.push(half(d));
        sums.push(half(d * total as f32));
    }
    (quants, scales, sums)
}

/// `x` rounded to the nearest half float (ties to even), through its bits.
fn half(x: f32) -> f32 {
    lectern::kernels::half::f16_to_f32(lectern::kernels::half::f32_to_f16(x))
}

/// An activation quantised as Q8_1 is llama.cpp's reference bit for bit:
/// random blocks at many scales, halves exactly between two integers (a
/// block whose largest value is 127 has `d = 1`), zeros, tiny values and a
/// block holding a NaN.
pub fn q8_1_quantising_is_llama_cpps_reference() {
    let mut numbers = Numbers(11);
    let mut values: Vec<f32> = Vec::new();
    for block in 0..64 {
        let scale = 10f32.powi(block % 9 - 4);
        values.extend((0..BLOCK).map(|_| numbers.signed() * scale));
    }
    let halves: Vec<f32> = (0..BLOCK as i32).map(|i| (i - 16) as f32 * 7.0 + 0.5).collect();
    values.extend(
        halves
            .iter()
            .enumerate()
            .map(|(i, v)| if i == 0 { 127.0 } else { *v }),
    );
    values.extend(
        halves
            .iter()
            .enumerate()
            .map(|(i, v)| if i == 3 { -127.0 } else { -v }),
    );
    values.extend([0.0f32; BLOCK]);
    values.extend((0..BLOCK).map(|i| f32::from_bits(i as u32 + 1)));
    values.extend((0..BLOCK).map(|i| if i == 5 { f32::NAN } else { i as f32 - 9.5 }));
    let mut x = Activation::default();
    x.quantise(&values);
    let (quants, scales, sums) = q8_1_reference(&values);
    for (b, (got, expected)) in x.quants.chunks(BLOCK).zip(quants.chunks(BLOCK)).enumerate() {
        assert_eq!(got, expected, "block {b}'s values");
    }
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&x.scales), bits(&scales), "the blocks' d");
    assert_eq!(bits(&x.sums), bits(&sums), "the blocks' d · Σ q");
}

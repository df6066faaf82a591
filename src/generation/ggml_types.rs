//! ggml's tensor types, read into the decoder's own formats: matrices into
//! [`BlockMatrix`] (Q4_0, Q4_1, Q5_0, Q8_0, Q4_K and Q6_K exactly; F16 and
//! F32 quantised again), vectors into `f32`.

use crate::error::{Error, Result};
use crate::kernels::half::f16_to_f32;

use super::blocks::{BlockMatrix, Input, Quants, BLOCK, SUPER};
use super::gguf::{Gguf, TensorInfo};

const F32: u32 = 0;
const F16: u32 = 1;
const Q4_0: u32 = 2;
const Q4_1: u32 = 3;
const Q5_0: u32 = 6;
const Q8_0: u32 = 8;
const Q4_K: u32 = 12;
const Q6_K: u32 = 14;

/// The ggml type's name, for messages.
fn type_name(ggml_type: u32) -> String {
    match ggml_type {
        F32 => "F32".into(),
        F16 => "F16".into(),
        Q4_0 => "Q4_0".into(),
        Q4_1 => "Q4_1".into(),
        Q5_0 => "Q5_0".into(),
        Q8_0 => "Q8_0".into(),
        Q4_K => "Q4_K".into(),
        Q6_K => "Q6_K".into(),
        other => format!("ggml type {other}"),
    }
}

/// Bytes per `values` of `ggml_type`, or `None` for a type not read here.
fn byte_len(ggml_type: u32, values: usize) -> Option<usize> {
    Some(match ggml_type {
        F32 => values * 4,
        F16 => values * 2,
        Q4_0 => values / 32 * 18,
        Q4_1 => values / 32 * 20,
        Q5_0 => values / 32 * 22,
        Q8_0 => values / 32 * 34,
        Q4_K => values / SUPER * 144,
        Q6_K => values / SUPER * 210,
        _ => return None,
    })
}

fn half_at(bytes: &[u8], at: usize) -> f32 {
    f16_to_f32(u16::from_le_bytes([bytes[at], bytes[at + 1]]))
}

/// The tensor `name` as a `rows × cols` matrix (ggml's `[cols, rows]`).
pub fn matrix(file: &Gguf, name: &str) -> Result<BlockMatrix> {
    let tensor = find(file, name)?;
    let (cols, rows) = match tensor.dims[..] {
        [cols, rows] => (cols as usize, rows as usize),
        _ => {
            return Err(Error::config(format!(
                "the model's tensor {name} is not a matrix"
            )))
        }
    };
    if cols % BLOCK != 0 {
        return Err(Error::config(format!(
            "the model's tensor {name} has {cols} columns, not a multiple of {BLOCK}"
        )));
    }
    let bytes = bytes_of(file, tensor)?;
    let mut matrix = BlockMatrix {
        rows,
        cols,
        scales: Vec::with_capacity(rows * cols / BLOCK),
        offsets: None,
        quants: Quants::Bytes(Vec::new()),
        input: match tensor.ggml_type {
            Q4_K | Q6_K => Input::Q8K,
            _ => Input::Q8_1,
        },
    };
    matrix.quants = match tensor.ggml_type {
        Q4_0 => Quants::Bytes(read_q4_0(&mut matrix, bytes)),
        Q4_1 => Quants::Nibbles(read_q4_1(&mut matrix, bytes)),
        Q5_0 => Quants::Shifted(read_q5_0(&mut matrix, bytes)),
        Q8_0 => Quants::Bytes(read_q8_0(&mut matrix, bytes)),
        Q4_K => Quants::Nibbles(read_q4_k(&mut matrix, bytes)),
        Q6_K => Quants::Wide(read_q6_k(&mut matrix, bytes)),
        _ => {
            let values = floats(tensor, bytes)?;
            let mut quants = Vec::with_capacity(values.len());
            for block in values.chunks_exact(BLOCK) {
                requantise(&mut matrix, &mut quants, block);
            }
            Quants::Bytes(quants)
        }
    };
    Ok(matrix)
}

/// The tensor `name` as `f32` values (norms' weights).
pub fn vector(file: &Gguf, name: &str) -> Result<Vec<f32>> {
    let tensor = find(file, name)?;
    floats(tensor, bytes_of(file, tensor)?)
}

fn find<'f>(file: &'f Gguf, name: &str) -> Result<&'f TensorInfo> {
    file.tensor(name)
        .ok_or_else(|| Error::config(format!("the model file has no tensor {name}")))
}

fn bytes_of<'a>(file: &Gguf<'a>, tensor: &TensorInfo) -> Result<&'a [u8]> {
    let len = byte_len(tensor.ggml_type, tensor.len()).ok_or_else(|| {
        Error::config(format!(
            "the model's tensor {} is {}, which Lectern does not read (F32, F16, Q4_0, Q4_1, Q5_0, Q8_0, Q4_K, Q6_K)",
            tensor.name,
            type_name(tensor.ggml_type)
        ))
    })?;
    file.tensor_bytes(tensor, len)
}

/// Every value of a tensor as `f32`.
fn floats(tensor: &TensorInfo, bytes: &[u8]) -> Result<Vec<f32>> {
    Ok(match tensor.ggml_type {
        F32 => bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        F16 => bytes.chunks_exact(2).map(|b| half_at(b, 0)).collect(),
        Q6_K => bytes
            .chunks_exact(210)
            .flat_map(|block| {
                let d = half_at(block, 208);
                q6_k_quants(block).map(|q| d * q as f32)
            })
            .collect(),
        other => {
            return Err(Error::config(format!(
                "the model's tensor {} is {}, expected a float or Q6_K tensor",
                tensor.name,
                type_name(other)
            )))
        }
    })
}

/// Q4_0: `d · (q − 8)`, low nibbles a block's first 16 values.
fn read_q4_0(matrix: &mut BlockMatrix, bytes: &[u8]) -> Vec<i8> {
    let mut quants = Vec::with_capacity(bytes.len() / 18 * 32);
    for block in bytes.chunks_exact(18) {
        matrix.scales.push(half_at(block, 0));
        let nibbles = &block[2..18];
        quants.extend(nibbles.iter().map(|b| (b & 0x0f) as i8 - 8));
        quants.extend(nibbles.iter().map(|b| (b >> 4) as i8 - 8));
    }
    quants
}

/// Q4_1: `d · q + m`, its nibbles kept as they are.
fn read_q4_1(matrix: &mut BlockMatrix, bytes: &[u8]) -> Vec<u8> {
    let mut offsets = Vec::with_capacity(bytes.len() / 20);
    let mut nibbles = Vec::with_capacity(bytes.len() / 20 * 16);
    for block in bytes.chunks_exact(20) {
        matrix.scales.push(half_at(block, 0));
        offsets.push(half_at(block, 2));
        nibbles.extend_from_slice(&block[4..20]);
    }
    matrix.offsets = Some(offsets);
    nibbles
}

/// Q5_0: `d · (q − 16)`, each `q` four low bits (Q4's order) and a fifth
/// from the block's 32-bit mask (bit `j` for value `j`); kept as `q`, the
/// values of [`Quants::Shifted`].
fn read_q5_0(matrix: &mut BlockMatrix, bytes: &[u8]) -> Vec<u8> {
    let mut quants = Vec::with_capacity(bytes.len() / 22 * 32);
    for block in bytes.chunks_exact(22) {
        matrix.scales.push(half_at(block, 0));
        let high = u32::from_le_bytes([block[2], block[3], block[4], block[5]]);
        let nibbles = &block[6..22];
        let value = |low: u8, bit: usize| low | (((high >> bit) & 1) << 4) as u8;
        quants.extend(nibbles.iter().enumerate().map(|(j, b)| value(b & 0x0f, j)));
        quants.extend(nibbles.iter().enumerate().map(|(j, b)| value(b >> 4, j + 16)));
    }
    quants
}

/// Q8_0: `d · q`.
fn read_q8_0(matrix: &mut BlockMatrix, bytes: &[u8]) -> Vec<i8> {
    let mut quants = Vec::with_capacity(bytes.len() / 34 * 32);
    for block in bytes.chunks_exact(34) {
        matrix.scales.push(half_at(block, 0));
        quants.extend(block[2..34].iter().map(|&b| b as i8));
    }
    quants
}

/// Q4_K: super-blocks of 256 with a 6-bit scale and minimum per 32 values:
/// `d · sc · q − dmin · m`; a 32-byte run holds two blocks (low nibbles, then
/// high), repacked into the Q4 order of [`Quants::Nibbles`].
fn read_q4_k(matrix: &mut BlockMatrix, bytes: &[u8]) -> Vec<u8> {
    let mut offsets = Vec::new();
    let mut nibbles = Vec::with_capacity(bytes.len() / 144 * 128);
    for block in bytes.chunks_exact(144) {
        let (d, dmin) = (half_at(block, 0), half_at(block, 2));
        let scales = &block[4..16];
        for (pair, q) in block[16..144].chunks_exact(32).enumerate() {
            for (half_index, shift) in [(0, 0), (1, 4)] {
                let (sc, m) = scale_min_k4(pair * 2 + half_index, scales);
                matrix.scales.push(d * sc as f32);
                offsets.push(-(dmin * m as f32));
                let value = |j: usize| (q[j] >> shift) & 0x0f;
                nibbles.extend((0..16).map(|j| value(j) | (value(j + 16) << 4)));
            }
        }
    }
    matrix.offsets = Some(offsets);
    nibbles
}

/// The 6-bit scale and minimum of sub-block `j` of a Q4_K super-block.
fn scale_min_k4(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

/// Q6_K: super-blocks of 256 with a scale per 16 values, `d · scale · q`;
/// each value kept as `scale · q` in an `i16`, `d` each 32-value block's scale.
fn read_q6_k(matrix: &mut BlockMatrix, bytes: &[u8]) -> Vec<i16> {
    let mut quants = Vec::with_capacity(bytes.len() / 210 * SUPER);
    for block in bytes.chunks_exact(210) {
        let d = half_at(block, 208);
        matrix.scales.extend([d; SUPER / BLOCK]);
        quants.extend(q6_k_quants(block));
    }
    quants
}

/// The 256 values of a Q6_K super-block over `d`: `scale · (q − 32)`, a
/// scale per 16 values, `q` four low bits in `ql` and two high in `qh`.
fn q6_k_quants(block: &[u8]) -> [i16; SUPER] {
    let (ql, qh) = (&block[0..128], &block[128..192]);
    let scale = |i: usize| block[192 + i / 16] as i8 as i16;
    let mut out = [0i16; SUPER];
    for n in 0..2 {
        let (ql, qh) = (&ql[n * 64..], &qh[n * 32..]);
        for l in 0..32 {
            let q = [
                (ql[l] & 0x0f) | ((qh[l] & 3) << 4),
                (ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4),
                (ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4),
                (ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4),
            ];
            for (k, q) in q.iter().enumerate() {
                let i = n * 128 + k * 32 + l;
                out[i] = scale(i) * (*q as i16 - 32);
            }
        }
    }
    out
}

/// A block of floats as symmetric int8: `scale = max|x| / 127`.
fn requantise(matrix: &mut BlockMatrix, quants: &mut Vec<i8>, values: &[f32]) {
    let amax = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let scale = amax / 127.0;
    let inverse = if scale != 0.0 { 1.0 / scale } else { 0.0 };
    matrix.scales.push(scale);
    quants.extend(values.iter().map(|v| (v * inverse).round() as i8));
}

#[cfg(test)]
mod tests {
    use super::{read_q4_0, read_q4_1, read_q4_k, read_q5_0, read_q6_k, read_q8_0};
    use crate::generation::blocks::{BlockMatrix, Input, Quants, BLOCK};

    /// A one-row matrix of `cols` values, for a reader to fill.
    fn row(cols: usize) -> BlockMatrix {
        BlockMatrix {
            rows: 1,
            cols,
            scales: Vec::new(),
            offsets: None,
            quants: Quants::Bytes(Vec::new()),
            input: Input::Q8_1,
        }
    }

    fn values(mut m: BlockMatrix, quants: Quants) -> Vec<f32> {
        m.quants = quants;
        let mut out = vec![0.0; m.cols];
        m.row_into(0, &mut out);
        out
    }

    const ONE: [u8; 2] = [0x00, 0x3c]; // 1.0 as a half float
    const HALF: [u8; 2] = [0x00, 0x38]; // 0.5

    /// ggml's Q4 order: byte j holds value j (low half) and value j + 16 (high half).
    fn nibbles() -> Vec<u8> {
        (0..16u8).map(|j| j | ((15 - j) << 4)).collect()
    }

    fn q4_expected(shift: f32, scale: f32) -> Vec<f32> {
        (0..16)
            .map(|j| j as f32)
            .chain((0..16).map(|j| (15 - j) as f32))
            .map(|q| scale * q + shift)
            .collect()
    }

    #[test]
    fn q4_0_and_q4_1_blocks_read_in_ggml_order() {
        let block: Vec<u8> = HALF.iter().copied().chain(nibbles()).collect();
        let mut m = row(BLOCK);
        let quants = Quants::Bytes(read_q4_0(&mut m, &block));
        assert_eq!(values(m, quants), q4_expected(-4.0, 0.5), "Q4_0 is d · (q − 8)");
        let block: Vec<u8> = HALF.iter().chain(&ONE).copied().chain(nibbles()).collect();
        let mut m = row(BLOCK);
        let quants = Quants::Nibbles(read_q4_1(&mut m, &block));
        assert_eq!(values(m, quants), q4_expected(1.0, 0.5), "Q4_1 is d · q + m");
    }

    /// Q5_0: the fifth bit of value `j` is bit `j` of the mask (here every
    /// third value's), so values span −16..=15.
    #[test]
    fn q5_0_blocks_take_their_fifth_bit_from_the_mask() {
        let mask: u32 = (0..32).filter(|j| j % 3 == 0).map(|j| 1u32 << j).sum();
        let block: Vec<u8> = HALF
            .iter()
            .copied()
            .chain(mask.to_le_bytes())
            .chain(nibbles())
            .collect();
        let mut m = row(BLOCK);
        let quants = Quants::Shifted(read_q5_0(&mut m, &block));
        let expected: Vec<f32> = (0..32)
            .map(|j| {
                let low = if j < 16 { j } else { 15 - (j - 16) };
                let high = if j % 3 == 0 { 16 } else { 0 };
                0.5 * ((low + high) as f32 - 16.0)
            })
            .collect();
        assert_eq!(values(m, quants), expected);
    }

    #[test]
    fn q8_0_blocks_are_d_times_q() {
        let block: Vec<u8> = HALF
            .iter()
            .copied()
            .chain((0..32).map(|i| (i as i8 - 16) as u8))
            .collect();
        let mut m = row(BLOCK);
        let quants = Quants::Bytes(read_q8_0(&mut m, &block));
        let expected: Vec<f32> = (0..32).map(|i| 0.5 * (i as f32 - 16.0)).collect();
        assert_eq!(values(m, quants), expected);
    }

    /// A Q4_K super-block whose eight sub-blocks have scale `j + 1` and minimum `j`
    /// (6-bit fields packed as ggml packs them), `d = 1`, `dmin = 0.5`.
    #[test]
    fn q4_k_super_blocks_read_their_packed_scales_and_minimums() {
        let (sc, mn): (Vec<u8>, Vec<u8>) = ((1..=8).collect(), (0..8).collect());
        let mut scales = [0u8; 12];
        for j in 0..4 {
            scales[j] = sc[j];
            scales[j + 4] = mn[j];
            scales[j + 8] = (sc[j + 4] & 0x0f) | ((mn[j + 4] & 0x0f) << 4);
        }
        let qs: Vec<u8> = (0..128)
            .map(|i| (i % 16) as u8 | (((i / 2) % 16) as u8) << 4)
            .collect();
        let block: Vec<u8> = ONE
            .iter()
            .chain(&HALF)
            .chain(&scales)
            .chain(&qs)
            .copied()
            .collect();
        let mut m = row(256);
        let quants = Quants::Nibbles(read_q4_k(&mut m, &block));
        let got = values(m, quants);
        for (i, value) in got.iter().enumerate() {
            let (j, l) = (i / 32, i % 32);
            let byte = qs[(j / 2) * 32 + l];
            let q = if j % 2 == 0 { byte & 0x0f } else { byte >> 4 };
            assert_eq!(*value, sc[j] as f32 * q as f32 - 0.5 * mn[j] as f32, "value {i}");
        }
    }

    /// A Q6_K super-block: 6-bit values (4 low bits in `ql`, 2 high in `qh`) less 32, a scale per 16.
    #[test]
    fn q6_k_super_blocks_read_low_and_high_bits() {
        let ql: Vec<u8> = (0..128).map(|i| (i * 7 % 256) as u8).collect();
        let qh: Vec<u8> = (0..64).map(|i| (i * 13 % 256) as u8).collect();
        let scales: Vec<u8> = (0..16).map(|i| (i as i8 - 8) as u8).collect();
        let block: Vec<u8> = ql
            .iter()
            .chain(&qh)
            .chain(&scales)
            .chain(&HALF)
            .copied()
            .collect();
        let mut m = row(256);
        let quants = Quants::Wide(read_q6_k(&mut m, &block));
        let got = values(m, quants);
        for (i, value) in got.iter().enumerate() {
            let (half, k) = (i / 128, i % 128);
            let (quarter, l) = (k / 32, k % 32);
            let low = ql[half * 64 + (quarter % 2) * 32 + l] >> (4 * (quarter / 2)) & 0x0f;
            let high = (qh[half * 32 + l] >> (2 * quarter)) & 3;
            let q = (low | high << 4) as i32 - 32;
            let scale = scales[half * 8 + quarter * 2 + l / 16] as i8 as f32;
            assert_eq!(*value, 0.5 * scale * q as f32, "value {i}");
        }
    }
}

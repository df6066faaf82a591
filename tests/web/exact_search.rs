//! The simd128 kernels of exact search in headless Chromium, against plain
//! scalar references: f32 dot, int8 quantisation and dot, the prefix scan
//! and the int8 scan with f32 re-rank (native builds use other kernels).

use lectern::retrieval::vectors::quantized::{dot_i8, quantize_into, stride_for, QuantizedSet};
use lectern::retrieval::vectors::scan::{quantized_top_k, scan_top_k, RERANK_FACTOR};
use lectern::retrieval::vectors::test_vectors::random_set;
use lectern::retrieval::vectors::vector::{dot, dot_scalar, exact_top_k};
use wasm_bindgen_test::*;

/// `quantize_into` written the plain way.
fn quantize_reference(vector: &[f32]) -> (Vec<i8>, f32) {
    let largest = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let mut out = vec![0i8; stride_for(vector.len())];
    if largest == 0.0 || !largest.is_finite() {
        return (out, 0.0);
    }
    // The same arithmetic as the scalar loop: one factor, then a multiply.
    let factor = 127.0 / largest;
    for (q, x) in out.iter_mut().zip(vector) {
        *q = (x * factor).round_ties_even() as i8;
    }
    (out, largest / 127.0)
}

#[wasm_bindgen_test]
fn simd_dot_products_match_the_scalar_ones() {
    for dims in [1, 3, 4, 15, 16, 17, 100, 384, 385] {
        let set = random_set(2, dims, dims as u64);
        let (a, b) = (set.get(0), set.get(1));
        assert!((dot(a, b) - dot_scalar(a, b)).abs() < 1e-5, "{dims}-d");
        let (qa, _) = quantize_reference(a);
        let (qb, _) = quantize_reference(b);
        let reference: i32 = qa.iter().zip(&qb).map(|(x, y)| *x as i32 * *y as i32).sum();
        assert_eq!(dot_i8(&qa, &qb), reference, "{dims}-d");
    }
    let extreme = vec![-127i8; 384];
    assert_eq!(dot_i8(&extreme, &extreme), 384 * 127 * 127);
}

#[wasm_bindgen_test]
fn simd_quantisation_matches_the_scalar_one() {
    let set = random_set(50, 385, 3);
    for i in 0..set.len() {
        let mut out = vec![0i8; stride_for(385)];
        let scale = quantize_into(set.get(i), &mut out);
        assert_eq!((out, scale), quantize_reference(set.get(i)));
    }
    // Ties (the largest is 127: a factor of exactly 1), a NaN, zeros.
    let mut odd: Vec<f32> = (0..40).map(|i| (i as f32 - 20.0) * 0.5).collect();
    odd[3] = 127.0;
    odd[7] = f32::NAN;
    odd[21] = -0.0;
    let mut out = vec![0i8; 48];
    let scale = quantize_into(&odd, &mut out);
    assert_eq!((out.clone(), scale), quantize_reference(&odd));
    assert_eq!(out[25], 2, "2.5 rounds to even");
    assert_eq!(quantize_into(&[f32::INFINITY, 1.0], &mut out), 0.0);
    assert!(out.iter().all(|&q| q == 0));
    let mut rows = QuantizedSet::new(385);
    rows.push(set.get(0));
    assert_eq!(rows.as_flat(), quantize_reference(set.get(0)).0.as_slice());
}

#[wasm_bindgen_test]
fn scans_match_the_filtered_search() {
    for dims in [384, 100] {
        let set = random_set(3000, dims, 17);
        let queries = random_set(20, dims, 19);
        let mut same = 0;
        for q in 0..queries.len() {
            let query = queries.get(q);
            for count in [0, 5, 999, 3000] {
                let exact = exact_top_k(&set, query, 10, |i| i < count);
                assert_eq!(
                    scan_top_k(&set, query, 10, count),
                    exact,
                    "{dims}-d, count {count}"
                );
                same += usize::from(quantized_top_k(&set, query, 10, count, RERANK_FACTOR) == exact);
            }
        }
        assert!(same >= 78, "{dims}-d: int8 + re-rank exact in {same} of 80");
    }
}

//! Four `f32` lanes: a wasm `v128` with simd128, an SSE `__m128` on x86-64
//! (where native tests run; the compiler leaves a `[f32; 4]` kernel scalar
//! there), a `[f32; 4]` elsewhere. Loads and stores take raw pointers: the
//! kernels check their slices' lengths once, up front.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use core::arch::wasm32::*;

    /// Four lanes.
    #[derive(Clone, Copy)]
    pub struct F4(v128);

    impl F4 {
        /// `x` in every lane.
        #[inline(always)]
        pub fn splat(x: f32) -> F4 {
            F4(f32x4_splat(x))
        }

        /// The four floats at `p` (unaligned).
        ///
        /// # Safety
        /// `p..p + 4` must be readable.
        #[inline(always)]
        pub unsafe fn load(p: *const f32) -> F4 {
            F4(v128_load(p as *const v128))
        }

        /// Writes the lanes to `p` (unaligned).
        ///
        /// # Safety
        /// `p..p + 4` must be writable.
        #[inline(always)]
        pub unsafe fn store(self, p: *mut f32) {
            v128_store(p as *mut v128, self.0)
        }

        /// Lane-wise sum.
        #[inline(always)]
        pub fn add(self, other: F4) -> F4 {
            F4(f32x4_add(self.0, other.0))
        }

        /// `self + a * b`, lane-wise.
        #[inline(always)]
        pub fn madd(self, a: F4, b: F4) -> F4 {
            F4(f32x4_add(self.0, f32x4_mul(a.0, b.0)))
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use core::arch::x86_64::*;

    /// Four lanes.
    #[derive(Clone, Copy)]
    pub struct F4(__m128);

    // SAFETY (every intrinsic below): SSE is part of the x86-64 baseline.
    impl F4 {
        /// `x` in every lane.
        #[inline(always)]
        pub fn splat(x: f32) -> F4 {
            F4(unsafe { _mm_set1_ps(x) })
        }

        /// The four floats at `p` (unaligned).
        ///
        /// # Safety
        /// `p..p + 4` must be readable.
        #[inline(always)]
        pub unsafe fn load(p: *const f32) -> F4 {
            F4(_mm_loadu_ps(p))
        }

        /// Writes the lanes to `p` (unaligned).
        ///
        /// # Safety
        /// `p..p + 4` must be writable.
        #[inline(always)]
        pub unsafe fn store(self, p: *mut f32) {
            _mm_storeu_ps(p, self.0)
        }

        /// Lane-wise sum.
        #[inline(always)]
        pub fn add(self, other: F4) -> F4 {
            F4(unsafe { _mm_add_ps(self.0, other.0) })
        }

        /// `self + a * b`, lane-wise.
        #[inline(always)]
        pub fn madd(self, a: F4, b: F4) -> F4 {
            F4(unsafe { _mm_add_ps(self.0, _mm_mul_ps(a.0, b.0)) })
        }
    }
}

#[cfg(not(any(
    all(target_arch = "wasm32", target_feature = "simd128"),
    target_arch = "x86_64"
)))]
mod imp {
    /// Four lanes.
    #[derive(Clone, Copy)]
    pub struct F4([f32; 4]);

    impl F4 {
        /// `x` in every lane.
        #[inline(always)]
        pub fn splat(x: f32) -> F4 {
            F4([x; 4])
        }

        /// The four floats at `p` (unaligned).
        ///
        /// # Safety
        /// `p..p + 4` must be readable.
        #[inline(always)]
        pub unsafe fn load(p: *const f32) -> F4 {
            F4(core::ptr::read_unaligned(p as *const [f32; 4]))
        }

        /// Writes the lanes to `p` (unaligned).
        ///
        /// # Safety
        /// `p..p + 4` must be writable.
        #[inline(always)]
        pub unsafe fn store(self, p: *mut f32) {
            core::ptr::write_unaligned(p as *mut [f32; 4], self.0)
        }

        /// Lane-wise sum.
        #[inline(always)]
        pub fn add(self, o: F4) -> F4 {
            let a = self.0;
            F4([a[0] + o.0[0], a[1] + o.0[1], a[2] + o.0[2], a[3] + o.0[3]])
        }

        /// `self + a * b`, lane-wise.
        #[inline(always)]
        pub fn madd(self, a: F4, b: F4) -> F4 {
            let c = self.0;
            F4([
                c[0] + a.0[0] * b.0[0],
                c[1] + a.0[1] * b.0[1],
                c[2] + a.0[2] * b.0[2],
                c[3] + a.0[3] * b.0[3],
            ])
        }
    }
}

pub use imp::F4;

impl F4 {
    /// The two groups of four of `eight` (which must hold 8 floats).
    #[inline(always)]
    pub fn pair(eight: &[f32]) -> (F4, F4) {
        let eight: &[f32; 8] = eight.try_into().expect("8 floats");
        // SAFETY: both loads read within the 8 floats of `eight`.
        unsafe { (F4::load(eight.as_ptr()), F4::load(eight.as_ptr().add(4))) }
    }
}

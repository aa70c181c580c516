//! Large read-mostly arrays on transparent huge pages.
//!
//! DP-SGLD and DP-MCMC read a random minibatch of a 10⁶-point data set every step:
//! with 4 KiB pages nearly every read also misses the TLB, and the page walks, not the
//! cache misses, bound the step. Copying the data into memory the kernel is asked to
//! back by 2 MiB pages (`madvise(MADV_HUGEPAGE)`, honoured when transparent huge pages
//! are set to `always` or `madvise`) removes most of them. A hint only: the values, and
//! so every result, are the same whether or not the kernel takes it.

const HUGE: usize = 2 << 20;

/// A read-only copy of a slice of f64 on memory advised for huge pages, aligned to a
/// huge-page boundary so that every whole 2 MiB of it can be one page.
#[derive(Debug, Clone, Default)]
pub struct HugePageSlice {
    buf: Vec<f64>,
    start: usize,
}

impl HugePageSlice {
    pub fn new(data: &[f64]) -> Self {
        let pad = HUGE / std::mem::size_of::<f64>();
        // room to start at a 2 MiB boundary and to end on one (so the last page is whole)
        let mut buf: Vec<f64> = Vec::with_capacity(data.len() + 2 * pad);
        let addr = buf.as_ptr() as usize;
        // the first f64 at a 2 MiB boundary (an f64 is 8-aligned, so is every boundary)
        let start = (addr.div_ceil(HUGE) * HUGE - addr) / std::mem::size_of::<f64>();
        advise(addr + start * 8, (data.len() * 8).div_ceil(HUGE) * HUGE);
        buf.resize(start, 0.0);
        buf.extend_from_slice(data);
        Self { buf, start }
    }
}

impl std::ops::Deref for HugePageSlice {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.buf[self.start..]
    }
}

/// Asks the kernel to back [addr, addr + len) by huge pages (whole 4 KiB pages only).
fn advise(addr: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let first = addr.div_ceil(PAGE) * PAGE;
        let end = addr + len;
        if end > first {
            // SAFETY: [first, end) lies inside an allocation the caller owns and has not
            // yet written; madvise only changes how the kernel backs it, never its
            // contents, and a failure (an unsupported kernel) leaves it as it was.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (addr, len);
}

/// Asks the processor to bring `x`'s cache line in (a hint; no effect on results).
#[inline(always)]
pub fn prefetch(x: &f64) {
    prefetch_line((x as *const f64).cast());
}

#[inline(always)]
fn prefetch_line(x: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, and SSE is part of x86_64
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

#[cfg(test)]
mod tests {
    #[test]
    fn copy_is_exact() {
        let data: Vec<f64> = (0..1_000_003).map(|i| (i as f64).sin()).collect();
        let c = super::HugePageSlice::new(&data);
        assert_eq!(&*c, &data[..]);
        assert_eq!(c.as_ptr() as usize % super::HUGE, 0);
        assert!(super::HugePageSlice::new(&[]).is_empty());
    }
}

//! JAX's random stream before version 0.5 (`jax_threefry_partitionable` off,
//! `jax_enable_x64` on), reproduced so that a paper whose code draws its inputs
//! with JAX can be run on exactly those inputs (Räisä et al. 2021's banana:
//! `raisa2021/banana` with `inputs = "authors"`).
//!
//! - The block cipher is Threefry-2x32 with 20 rounds (Salmon, Moraes, Dror, Shaw
//!   2011, "Parallel random numbers: as easy as 1, 2, 3", Table 4's rotations).
//! - A key of seed s is (s >> 32, s & 0xffffffff). `split(key, n)` enciphers the
//!   counters 0 … 2n−1 as pairs (i, n + i) and reads the 2n words back as n keys.
//! - 64 random bits per value: the counters 0 … 2m−1 enciphered as pairs (i, m + i);
//!   value i is word i shifted up 32 bits, or'ed with word m + i.
//! - A uniform double in [lo, hi): the top 52 bits as the mantissa of a number in
//!   [1, 2), minus 1, times (hi − lo), plus lo, and at least lo.
//! - A standard normal: √2 · erf⁻¹(u), u uniform in [nextafter(−1, 0), 1), with
//!   erf⁻¹ by Giles' double-precision approximation (Giles 2010, "Approximating the
//!   erfinv function", GPU Computing Gems Jade, ch. 10), the one XLA uses.
//!
//! `tests/reference/jax_threefry.py` printed the values the tests compare with,
//! from JAX 0.4.30 and from the authors' own `banana_model.py`.

/// A JAX PRNG key: two 32-bit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key(pub [u32; 2]);

/// Threefry-2x32, 20 rounds, on one counter pair.
pub fn threefry2x32(key: Key, x: [u32; 2]) -> [u32; 2] {
    const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    let ks = [key.0[0], key.0[1], key.0[0] ^ key.0[1] ^ 0x1BD1_1BDA];
    let (mut x0, mut x1) = (x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1]));
    for group in 0..5usize {
        for &r in &ROTATIONS[group % 2] {
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(r) ^ x0;
        }
        x0 = x0.wrapping_add(ks[(group + 1) % 3]);
        x1 = x1
            .wrapping_add(ks[(group + 2) % 3])
            .wrapping_add(group as u32 + 1);
    }
    [x0, x1]
}

/// The words of the counters 0 … 2m−1 enciphered as pairs (i, m + i): the first
/// elements of the pairs, then the second.
fn words(key: Key, m: usize) -> Vec<u32> {
    let mut out = vec![0u32; 2 * m];
    for i in 0..m {
        let [a, b] = threefry2x32(key, [i as u32, (m + i) as u32]);
        out[i] = a;
        out[m + i] = b;
    }
    out
}

impl Key {
    /// `jax.random.PRNGKey(seed)`.
    pub fn from_seed(seed: u64) -> Key {
        Key([(seed >> 32) as u32, seed as u32])
    }

    /// `jax.random.split(key, n)`.
    pub fn split(self, n: usize) -> Vec<Key> {
        let w = words(self, n);
        (0..n).map(|i| Key([w[2 * i], w[2 * i + 1]])).collect()
    }

    /// `jax.random.bits(key, (n,), uint64)`.
    pub fn bits64(self, n: usize) -> Vec<u64> {
        let w = words(self, n);
        (0..n)
            .map(|i| (u64::from(w[i]) << 32) | u64::from(w[n + i]))
            .collect()
    }

    /// `jax.random.uniform(key, (n,), float64, lo, hi)`.
    pub fn uniform(self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        let one = 1.0f64.to_bits();
        self.bits64(n)
            .into_iter()
            .map(|b| {
                let x = f64::from_bits((b >> 12) | one) - 1.0;
                (x * (hi - lo) + lo).max(lo)
            })
            .collect()
    }

    /// `jax.random.normal(key, (n,), float64)` (any shape: the values in row-major order).
    pub fn normal(self, n: usize) -> Vec<f64> {
        let lo = f64::from_bits((-1.0f64).to_bits() - 1); // nextafter(−1, 0)
        self.uniform(n, lo, 1.0)
            .into_iter()
            .map(|u| std::f64::consts::SQRT_2 * erfinv(u))
            .collect()
    }
}

/// erf⁻¹(x) for −1 ≤ x ≤ 1, Giles' double-precision approximation (three
/// polynomials in w = −ln(1 − x²)), ±∞ at ±1. The coefficients are kept as Giles
/// printed them (20 digits); they round to the same doubles as XLA's.
#[allow(clippy::excessive_precision)]
pub fn erfinv(x: f64) -> f64 {
    const W_LT_6_25: [f64; 23] = [
        -3.6444120640178196996e-21,
        -1.685059138182016589e-19,
        1.2858480715256400167e-18,
        1.115787767802518096e-17,
        -1.333171662854620906e-16,
        2.0972767875968561637e-17,
        6.6376381343583238325e-15,
        -4.0545662729752068639e-14,
        -8.1519341976054721522e-14,
        2.6335093153082322977e-12,
        -1.2975133253453532498e-11,
        -5.4154120542946279317e-11,
        1.051212273321532285e-09,
        -4.1126339803469836976e-09,
        -2.9070369957882005086e-08,
        4.2347877827932403518e-07,
        -1.3654692000834678645e-06,
        -1.3882523362786468719e-05,
        0.0001867342080340571352,
        -0.00074070253416626697512,
        -0.0060336708714301490533,
        0.24015818242558961693,
        1.6536545626831027356,
    ];
    const W_LT_16: [f64; 19] = [
        2.2137376921775787049e-09,
        9.0756561938885390979e-08,
        -2.7517406297064545428e-07,
        1.8239629214389227755e-08,
        1.5027403968909827627e-06,
        -4.013867526981545969e-06,
        2.9234449089955446044e-06,
        1.2475304481671778723e-05,
        -4.7318229009055733981e-05,
        6.8284851459573175448e-05,
        2.4031110387097893999e-05,
        -0.0003550375203628474796,
        0.00095328937973738049703,
        -0.0016882755560235047313,
        0.0024914420961078508066,
        -0.0037512085075692412107,
        0.005370914553590063617,
        1.0052589676941592334,
        3.0838856104922207635,
    ];
    const W_GE_16: [f64; 17] = [
        -2.7109920616438573243e-11,
        -2.5556418169965252055e-10,
        1.5076572693500548083e-09,
        -3.7894654401267369937e-09,
        7.6157012080783393804e-09,
        -1.4960026627149240478e-08,
        2.9147953450901080826e-08,
        -6.7711997758452339498e-08,
        2.2900482228026654717e-07,
        -9.9298272942317002539e-07,
        4.5260625972231537039e-06,
        -1.9681778105531670567e-05,
        7.5995277030017761139e-05,
        -0.00021503011930044477347,
        -0.00013871931833623122026,
        1.0103004648645343977,
        4.8499064014085844221,
    ];
    if x.abs() == 1.0 {
        return x * f64::INFINITY;
    }
    let w = -(-x * x).ln_1p();
    let (coefficients, z): (&[f64], f64) = if w < 6.25 {
        (&W_LT_6_25, w - 3.125)
    } else if w < 16.0 {
        (&W_LT_16, w.sqrt() - 3.25)
    } else {
        (&W_GE_16, w.sqrt() - 5.0)
    };
    let p = coefficients[1..]
        .iter()
        .fold(coefficients[0], |p, &c| c + p * z);
    p * x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> serde_json::Value {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/reference/jax-threefry.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn floats(v: &serde_json::Value) -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    }

    /// Keys and bits are exact; doubles within 2 ulp (XLA may fuse x·(hi − lo) + lo,
    /// and its log1p is not the C library's).
    #[test]
    fn keys_bits_uniforms_and_normals_are_jaxs() {
        let r = reference();
        let key = Key::from_seed(43247);
        let keys = key.split(3);
        for (k, want) in keys.iter().zip(r["split_43247_3"].as_array().unwrap()) {
            let want: Vec<u32> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_u64().unwrap() as u32)
                .collect();
            assert_eq!(k.0.to_vec(), want);
        }
        let bits: Vec<String> = keys[0].bits64(3).iter().map(u64::to_string).collect();
        let want: Vec<String> = r["bits64_k0_3"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap().to_string())
            .collect();
        assert_eq!(bits, want);
        let close = |got: &[f64], want: &[f64]| {
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() <= 4.0 * f64::EPSILON * w.abs().max(1e-300),
                    "{g} vs {w}"
                );
            }
        };
        close(&keys[0].uniform(3, 0.0, 1.0), &floats(&r["uniform_k0_3"]));
        close(&keys[0].normal(5), &floats(&r["normal_k0_5"]));
        let tail = Key::from_seed(7).normal(1001);
        close(&tail[997..], &floats(&r["normal_seed7_1001_tail"]));
    }

    /// Against known values (Abramowitz & Stegun-level tables, to 16 digits) and,
    /// in the tails, erfc of the result against 1 − x.
    #[test]
    #[allow(clippy::excessive_precision)]
    fn erfinv_inverts_erf() {
        for (y, want) in [
            (0.5, 0.476_936_276_204_469_9),
            (0.9, 1.163_087_153_676_674_1),
            (-0.9, -1.163_087_153_676_674_1),
            (0.99, 1.821_386_367_718_449_6),
            (1e-9, 8.862_269_254_527_580e-10),
            (0.0, 0.0),
        ] {
            let x = erfinv(y);
            assert!(
                (x - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "{y}: {x} vs {want}"
            );
        }
        // the second and third polynomials: w = −ln(1 − y²) above 6.25 and above 16
        // (1 − y² carries y's rounding: a relative error of about ε / (2·tail))
        for tail in [1e-4, 1e-6, 1e-8, 1e-10] {
            let y: f64 = 1.0 - tail;
            let exact_tail = 1.0 - y;
            let x = erfinv(y);
            let back = statrs::function::erf::erfc(x);
            // (statrs' erfc is good to about 1e-10 here)
            let allowed = 1e-9 + 4.0 * f64::EPSILON / exact_tail;
            assert!(
                ((back - exact_tail) / exact_tail).abs() < allowed,
                "{tail}: {x} -> erfc {back}"
            );
        }
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert_eq!(erfinv(-1.0), f64::NEG_INFINITY);
    }
}

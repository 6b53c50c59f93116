//! `Math` as V8 (Node 20) computes it, to the last bit.
//!
//! QuickJS takes its `Math` functions and its `**` operator from the C library (glibc here),
//! whose results differ from V8's in the last digit for many inputs: `1.0725 ** 3` is
//! `1.233649828125` in Node and `1.2336498281250001` with glibc's `pow`; `Math.atan2` differs on
//! 17% of random inputs, `Math.exp` on 10%. V8 computes them with its own ports of fdlibm
//! (`src/base/ieee754.cc`), and `Math.hypot` with a scaled, compensated sum of its own.
//!
//! - `**` and `Math.pow` (the C symbol [`pow`]): [`pml_jstext::math::pow`], fdlibm's `e_pow.c`
//!   as V8 adapted it.
//! - `Math.hypot`: V8's `MathHypot`, in `worker/node20.js` (QuickJS folds C's `hypot` over
//!   the arguments).
//! - `log`, `log10`, `log1p`, `sin`, `cos`, `sinh`, `tanh`, `atanh`: fdlibm's (`e_log.c`,
//!   `e_log10.c`, `s_log1p.c`, `s_sin.c`/`s_cos.c` over `e_rem_pio2.c` and fdlibm 5.3's kernels,
//!   `e_sinh.c`, `s_tanh.c`, `e_atanh.c`), which V8's are; the `libm` crate's (FreeBSD's later
//!   versions) differ on 0.1-0.8% of inputs. Past 2**19 π/2 (about 823,550), `sin` and `cos`
//!   are the `libm` crate's, whose reduction is fdlibm's but whose cosine kernel is not.
//! - `exp`, `cosh`, `asinh`, `acosh`, `atan2`: the `libm` crate's or fdlibm's method, with V8's
//!   special cases and expressions.
//! - `cbrt`: FreeBSD's `s_cbrt.c`, as V8's.
//! - `expm1`, `log2`, `tan`, `asin`, `acos`, `atan`: the `libm` crate (Rust's port of musl,
//!   itself FreeBSD's msun, fdlibm's heir), which gives V8's results where glibc does not.
//!
//! The C library's symbols are replaced for the whole process (`#[no_mangle]` definitions below):
//! the QuickJS engine is C code that calls `pow`, `sin`... by name, and a definition in the
//! executable takes precedence over the shared C library. They keep the C library's own special
//! cases where C and ECMAScript differ (`pow(1, NaN)` is 1 in C; QuickJS handles those before
//! it calls `pow`), so Rust code of the same process that uses `f64::powf` and the like gets
//! what it expects, within the same accuracy.
//!
//! Measured against Node 20 on 21,000 inputs per function (random, of every magnitude, counts,
//! whole degrees): every function gives V8's bits, but `sin` and `cos` past 2**19 π/2 (0.1% of
//! those inputs). `tests/it/math.rs` runs a program of every kind of input in the sandbox and
//! in Node and compares the results, exactly.
//!
//! fdlibm's notice, which its licence asks to keep with its methods (below):
//!
//! > Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//! > Permission to use, copy, modify, and distribute this software is freely granted, provided
//! > that this notice is preserved.

// fdlibm's constants are written as it publishes them, to more digits than a double holds.
#![allow(clippy::excessive_precision)]

/// The high 32 bits of `x`'s representation.
fn high(x: f64) -> i32 {
    (x.to_bits() >> 32) as i32
}

/// The C library's `pow` for the process: [`pml_jstext::math::pow`], but `pow(1, y)`,
/// `pow(x, ±0)` and `pow(-1, ±∞)` are 1 (C's answers; ECMAScript's `1 ** NaN` and
/// `(-1) ** Infinity` are NaN, which QuickJS answers itself before it calls `pow`).
#[no_mangle]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    if x == 1.0 || y == 0.0 || (x == -1.0 && y.is_infinite()) {
        return 1.0;
    }
    pml_jstext::math::pow(x, y)
}

/// C library functions of one `f64` taken from the `libm` crate, whose results are V8's where
/// glibc's are not.
macro_rules! from_libm {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("The C library's `", stringify!($name), "`, as V8 computes it.")]
        #[no_mangle]
        pub extern "C" fn $name(x: f64) -> f64 {
            libm::$name(x)
        }
    )*};
}

from_libm!(expm1, log2, tan, asin, acos, atan);

/// The low 32 bits of `x`'s representation.
fn low(x: f64) -> u32 {
    x.to_bits() as u32
}

/// `x` with the high 32 bits of its representation replaced.
fn with_high(x: f64, high: i32) -> f64 {
    f64::from_bits((x.to_bits() & 0xffff_ffff) | (u64::from(high as u32) << 32))
}

const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01; // 0x3FE62E42 FEE00000
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10; // 0x3DEA39EF 35793C76
const TWO54: f64 = 1.801_439_850_948_198_400_00e+16; // 0x43500000 00000000
/// The coefficients of `log(1+f)`'s polynomial in fdlibm's `log` (`Lg1`-`Lg7`) and `log1p`
/// (`Lp1`-`Lp7`, the same).
const LG: [f64; 7] = [
    6.666_666_666_666_735_130e-01,
    3.999_999_999_940_941_908e-01,
    2.857_142_874_366_239_149e-01,
    2.222_219_843_214_978_396e-01,
    1.818_357_216_161_805_012e-01,
    1.531_383_769_920_937_332e-01,
    1.479_819_860_511_658_591e-01,
];

/// The C library's `log`, as V8 (Node 20) computes it: fdlibm's `e_log.c`. (The `libm`
/// crate's, FreeBSD's later version, differs on 0.3% of inputs.)
#[no_mangle]
pub extern "C" fn log(x: f64) -> f64 {
    let mut x = x;
    let mut hx = high(x);
    let lx = low(x);
    let mut k: i32 = 0;
    if hx < 0x0010_0000 {
        // x < 2**-1022
        if ((hx & 0x7fff_ffff) as u32 | lx) == 0 {
            return f64::NEG_INFINITY; // log(±0)
        }
        if hx < 0 {
            return f64::NAN; // log(-#)
        }
        k -= 54;
        x *= TWO54; // subnormal: scaled up
        hx = high(x);
    }
    if hx >= 0x7ff0_0000 {
        return x + x;
    }
    k += (hx >> 20) - 1023;
    hx &= 0x000f_ffff;
    let i = (hx + 0x95f64) & 0x10_0000;
    x = with_high(x, hx | (i ^ 0x3ff0_0000)); // x or x/2, normalized
    k += i >> 20;
    let f = x - 1.0;
    if (0x000f_ffff & (2 + hx)) < 3 {
        // |f| < 2**-20
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            let dk = f64::from(k);
            return dk * LN2_HI + dk * LN2_LO;
        }
        let r = f * f * (0.5 - 0.333_333_333_333_333_33 * f);
        if k == 0 {
            return f - r;
        }
        let dk = f64::from(k);
        return dk * LN2_HI - ((r - dk * LN2_LO) - f);
    }
    let s = f / (2.0 + f);
    let dk = f64::from(k);
    let z = s * s;
    let mut i = hx - 0x6147a;
    let w = z * z;
    let j = 0x6b851 - hx;
    let t1 = w * (LG[1] + w * (LG[3] + w * LG[5]));
    let t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])));
    i |= j;
    let r = t2 + t1;
    if i > 0 {
        let hfsq = 0.5 * f * f;
        if k == 0 {
            f - (hfsq - s * (hfsq + r))
        } else {
            dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)
        }
    } else if k == 0 {
        f - s * (f - r)
    } else {
        dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f)
    }
}

/// The C library's `log10`, as V8 computes it: fdlibm's `e_log10.c` (over its `log`).
#[no_mangle]
pub extern "C" fn log10(x: f64) -> f64 {
    const IVLN10: f64 = f64::from_bits(0x3FDB_CB7B_1526_E50E); // 1/ln(10)
    const LOG10_2HI: f64 = 3.010_299_956_636_117_713_06e-01; // 0x3FD34413 509F6000
    const LOG10_2LO: f64 = 3.694_239_077_158_930_786_16e-13; // 0x3D59FEF3 11F12B36
    let mut x = x;
    let mut hx = high(x);
    let lx = low(x);
    let mut k: i32 = 0;
    if hx < 0x0010_0000 {
        if ((hx & 0x7fff_ffff) as u32 | lx) == 0 {
            return f64::NEG_INFINITY;
        }
        if hx < 0 {
            return f64::NAN;
        }
        k -= 54;
        x *= TWO54;
        hx = high(x);
    }
    if hx >= 0x7ff0_0000 {
        return x + x;
    }
    k += (hx >> 20) - 1023;
    let i = ((k as u32) & 0x8000_0000) >> 31;
    hx = (hx & 0x000f_ffff) | ((0x3ff - i as i32) << 20);
    let y = f64::from(k + i as i32);
    x = with_high(x, hx);
    let z = y * LOG10_2LO + IVLN10 * log(x);
    z + y * LOG10_2HI
}

/// The C library's `log1p`, as V8 computes it: fdlibm's `s_log1p.c`.
#[no_mangle]
pub extern "C" fn log1p(x: f64) -> f64 {
    let hx = high(x);
    let ax = hx & 0x7fff_ffff;
    let mut k: i32 = 1;
    let mut f = 0.0;
    let mut hu: i32 = 0;
    let mut c = 0.0;
    if hx < 0x3fda_827a {
        // x < 0.41422
        if ax >= 0x3ff0_0000 {
            // x <= -1.0
            return if x == -1.0 {
                f64::NEG_INFINITY
            } else {
                f64::NAN
            };
        }
        if ax < 0x3e20_0000 {
            // |x| < 2**-29
            if TWO54 + x > 0.0 && ax < 0x3c90_0000 {
                return x; // |x| < 2**-54
            }
            return x - x * x * 0.5;
        }
        if hx > 0 || hx <= 0xbfd2_bec3_u32 as i32 {
            // -0.2929 < x < 0.41422
            k = 0;
            f = x;
            hu = 1;
        }
    }
    if hx >= 0x7ff0_0000 {
        return x + x;
    }
    if k != 0 {
        let mut u;
        if hx < 0x4340_0000 {
            u = 1.0 + x;
            hu = high(u);
            k = (hu >> 20) - 1023;
            c = if k > 0 { 1.0 - (u - x) } else { x - (u - 1.0) }; // correction term
            c /= u;
        } else {
            u = x;
            hu = high(u);
            k = (hu >> 20) - 1023;
            c = 0.0;
        }
        hu &= 0x000f_ffff;
        if hu < 0x6a09e {
            u = with_high(u, hu | 0x3ff0_0000); // u normalized
        } else {
            k += 1;
            u = with_high(u, hu | 0x3fe0_0000); // u/2 normalized
            hu = (0x0010_0000 - hu) >> 2;
        }
        f = u - 1.0;
    }
    let hfsq = 0.5 * f * f;
    let dk = f64::from(k);
    if hu == 0 {
        // |f| < 2**-20
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            c += dk * LN2_LO;
            return dk * LN2_HI + c;
        }
        let r = hfsq * (1.0 - 0.666_666_666_666_666_66 * f);
        if k == 0 {
            return f - r;
        }
        return dk * LN2_HI - ((r - (dk * LN2_LO + c)) - f);
    }
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z
        * (LG[0] + z * (LG[1] + z * (LG[2] + z * (LG[3] + z * (LG[4] + z * (LG[5] + z * LG[6]))))));
    if k == 0 {
        f - (hfsq - s * (hfsq + r))
    } else {
        dk * LN2_HI - ((hfsq - (s * (hfsq + r) + (dk * LN2_LO + c))) - f)
    }
}

/// `x` reduced by multiples of π/2 as fdlibm's `e_rem_pio2.c` reduces it for |x| up to
/// 2**19 π/2: the multiple's index and the remainder as a sum of two doubles; `None` past
/// that (the `libm` crate's reduction answers those).
fn rem_pio2(x: f64) -> Option<(i32, f64, f64)> {
    const NPIO2_HW: [i32; 32] = [
        0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB, 0x401F6A7A, 0x4022D97C, 0x4025FDBB,
        0x402921FB, 0x402C463A, 0x402F6A7A, 0x4031475C, 0x4032D97C, 0x40346B9C, 0x4035FDBB,
        0x40378FDB, 0x403921FB, 0x403AB41B, 0x403C463A, 0x403DD85A, 0x403F6A7A, 0x40407E4C,
        0x4041475C, 0x4042106C, 0x4042D97C, 0x4043A28C, 0x40446B9C, 0x404534AC, 0x4045FDBB,
        0x4046C6CB, 0x40478FDB, 0x404858EB, 0x404921FB,
    ];
    const INVPIO2: f64 = f64::from_bits(0x3FE4_5F30_6DC9_C883); // 2/π
    const PIO2_1: f64 = 1.570_796_326_734_125_614_17e+00; // 0x3FF921FB 54400000
    const PIO2_1T: f64 = 6.077_100_506_506_192_249_32e-11; // 0x3DD0B461 1A626331
    const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11; // 0x3DD0B461 1A600000
    const PIO2_2T: f64 = 2.022_266_248_795_950_631_54e-21; // 0x3BA3198A 2E037073
    const PIO2_3: f64 = 2.022_266_248_711_166_455_80e-21; // 0x3BA3198A 2E000000
    const PIO2_3T: f64 = 8.478_427_660_368_899_569_97e-32; // 0x397B839A 252049C1
    let hx = high(x);
    let ix = hx & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        return Some((0, x, 0.0)); // |x| <= π/4
    }
    if ix < 0x4002_d97c {
        // |x| < 3π/4: n = ±1
        return Some(if hx > 0 {
            let z = x - PIO2_1;
            if ix != 0x3ff9_21fb {
                let y0 = z - PIO2_1T;
                (1, y0, (z - y0) - PIO2_1T)
            } else {
                let z = z - PIO2_2;
                let y0 = z - PIO2_2T;
                (1, y0, (z - y0) - PIO2_2T)
            }
        } else {
            let z = x + PIO2_1;
            if ix != 0x3ff9_21fb {
                let y0 = z + PIO2_1T;
                (-1, y0, (z - y0) + PIO2_1T)
            } else {
                let z = z + PIO2_2;
                let y0 = z + PIO2_2T;
                (-1, y0, (z - y0) + PIO2_2T)
            }
        });
    }
    if ix > 0x4139_21fb {
        return None;
    }
    // Medium: |x| <= 2**19 π/2.
    let t = x.abs();
    let n = (t * INVPIO2 + 0.5) as i32;
    let fn_ = f64::from(n);
    let mut r = t - fn_ * PIO2_1;
    let mut w = fn_ * PIO2_1T; // good to 85 bits
    let mut y0;
    if n < 32 && ix != NPIO2_HW[(n - 1) as usize] {
        y0 = r - w;
    } else {
        let j = ix >> 20;
        y0 = r - w;
        let i = j - ((high(y0) >> 20) & 0x7ff);
        if i > 16 {
            // A second iteration, good to 118 bits.
            let t = r;
            w = fn_ * PIO2_2;
            r = t - w;
            w = fn_ * PIO2_2T - ((t - r) - w);
            y0 = r - w;
            let i = j - ((high(y0) >> 20) & 0x7ff);
            if i > 49 {
                // A third, 151 bits.
                let t = r;
                w = fn_ * PIO2_3;
                r = t - w;
                w = fn_ * PIO2_3T - ((t - r) - w);
                y0 = r - w;
            }
        }
    }
    let y1 = (r - y0) - w;
    Some(if hx < 0 { (-n, -y0, -y1) } else { (n, y0, y1) })
}

/// fdlibm's `__kernel_sin` on [-π/4, π/4] (`x + y`, `tail`: whether `y` is there).
fn kernel_sin(x: f64, y: f64, tail: bool) -> f64 {
    const S1: f64 = -1.666_666_666_666_663_243_48e-01;
    const S2: f64 = 8.333_333_333_322_489_461_24e-03;
    const S3: f64 = -1.984_126_982_985_794_931_34e-04;
    const S4: f64 = 2.755_731_370_707_006_767_89e-06;
    const S5: f64 = -2.505_076_025_340_686_341_95e-08;
    const S6: f64 = 1.589_690_995_211_550_102_21e-10;
    let ix = high(x) & 0x7fff_ffff;
    if ix < 0x3e40_0000 && (x as i32) == 0 {
        return x; // |x| < 2**-27
    }
    let z = x * x;
    let v = z * x;
    let r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    if !tail {
        x + v * (S1 + z * r)
    } else {
        x - ((z * (0.5 * y - v * r) - y) - v * S1)
    }
}

/// fdlibm's `__kernel_cos` on [-π/4, π/4] (fdlibm 5.3's, with `qx`: V8's).
fn kernel_cos(x: f64, y: f64) -> f64 {
    const C1: f64 = 4.166_666_666_666_660_190_37e-02;
    const C2: f64 = -1.388_888_888_887_410_957_49e-03;
    const C3: f64 = 2.480_158_728_947_672_941_78e-05;
    const C4: f64 = -2.755_731_435_139_066_330_35e-07;
    const C5: f64 = 2.087_572_321_298_174_827_90e-09;
    const C6: f64 = -1.135_964_755_778_819_482_65e-11;
    let ix = high(x) & 0x7fff_ffff;
    if ix < 0x3e40_0000 && (x as i32) == 0 {
        return 1.0; // |x| < 2**-27
    }
    let z = x * x;
    let r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    if ix < 0x3fd3_3333 {
        // |x| < 0.3
        return 1.0 - (0.5 * z - (z * r - x * y));
    }
    let qx = if ix > 0x3fe9_0000 {
        0.28125 // x > 0.78125
    } else {
        f64::from_bits(u64::from((ix - 0x0020_0000) as u32) << 32) // x/4
    };
    let hz = 0.5 * z - qx;
    let a = 1.0 - qx;
    a - (hz - (z * r - x * y))
}

/// The C library's `sin`, as V8 computes it: fdlibm's `s_sin.c` (past 2**19 π/2, the `libm`
/// crate's, whose reduction is the same but whose cosine kernel is FreeBSD's).
#[no_mangle]
pub extern "C" fn sin(x: f64) -> f64 {
    let ix = high(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        return kernel_sin(x, 0.0, false);
    }
    if ix >= 0x7ff0_0000 {
        return f64::NAN; // ±∞ or NaN
    }
    match rem_pio2(x) {
        Some((n, y0, y1)) => match n & 3 {
            0 => kernel_sin(y0, y1, true),
            1 => kernel_cos(y0, y1),
            2 => -kernel_sin(y0, y1, true),
            _ => -kernel_cos(y0, y1),
        },
        None => libm::sin(x),
    }
}

/// The C library's `cos`, as V8 computes it: fdlibm's `s_cos.c` (past 2**19 π/2, the `libm`
/// crate's).
#[no_mangle]
pub extern "C" fn cos(x: f64) -> f64 {
    let ix = high(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        return kernel_cos(x, 0.0);
    }
    if ix >= 0x7ff0_0000 {
        return f64::NAN; // ±∞ or NaN
    }
    match rem_pio2(x) {
        Some((n, y0, y1)) => match n & 3 {
            0 => kernel_cos(y0, y1),
            1 => -kernel_sin(y0, y1, true),
            2 => -kernel_cos(y0, y1),
            _ => kernel_sin(y0, y1, true),
        },
        None => libm::cos(x),
    }
}

/// The C library's `sinh`, as V8 computes it: fdlibm's `e_sinh.c` (over V8's `exp` and
/// `expm1`).
#[no_mangle]
pub extern "C" fn sinh(x: f64) -> f64 {
    let jx = high(x);
    let ix = jx & 0x7fff_ffff;
    if ix >= 0x7ff0_0000 {
        return x + x; // ±∞ or NaN
    }
    let h = if jx < 0 { -0.5 } else { 0.5 };
    if ix < 0x4036_0000 {
        // |x| < 22
        if ix < 0x3e30_0000 {
            return x; // |x| < 2**-28
        }
        let t = expm1(x.abs());
        if ix < 0x3ff0_0000 {
            return h * (2.0 * t - t * t / (t + 1.0));
        }
        return h * (t + t / (t + 1.0));
    }
    if ix < 0x4086_2e42 {
        return h * exp(x.abs()); // |x| in [22, log(maxdouble)]
    }
    let lx = low(x);
    if ix < 0x4086_33ce || (ix == 0x4086_33ce && lx <= 0x8fb9_f87d) {
        // |x| in [log(maxdouble), overflow threshold]
        let w = exp(0.5 * x.abs());
        let t = h * w;
        return t * w;
    }
    x * 1.0e307 // overflow
}

/// The C library's `tanh`, as V8 computes it: fdlibm's `s_tanh.c`, `x` itself below 2**-28.
#[no_mangle]
pub extern "C" fn tanh(x: f64) -> f64 {
    let jx = high(x);
    let ix = jx & 0x7fff_ffff;
    if ix >= 0x7ff0_0000 {
        return if jx >= 0 {
            1.0 / x + 1.0
        } else {
            1.0 / x - 1.0
        }; // ±1, or NaN
    }
    let z = if ix < 0x4036_0000 {
        // |x| < 22
        if ix < 0x3e30_0000 {
            return x; // |x| < 2**-28
        }
        if ix >= 0x3ff0_0000 {
            let t = expm1(2.0 * x.abs());
            1.0 - 2.0 / (t + 2.0)
        } else {
            let t = expm1(-2.0 * x.abs());
            -t / (t + 2.0)
        }
    } else {
        1.0 // |x| >= 22
    };
    if jx >= 0 {
        z
    } else {
        -z
    }
}

/// The C library's `atanh`, as V8 computes it: fdlibm's `e_atanh.c` (over its `log1p`).
#[no_mangle]
pub extern "C" fn atanh(x: f64) -> f64 {
    let hx = high(x);
    let ix = hx & 0x7fff_ffff;
    let ax = x.abs();
    if ax > 1.0 || x.is_nan() {
        return f64::NAN;
    }
    if ix == 0x3ff0_0000 {
        return if x > 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if ix < 0x3e30_0000 {
        return x; // |x| < 2**-28
    }
    let t = if ix < 0x3fe0_0000 {
        // |x| < 0.5
        let t = ax + ax;
        0.5 * log1p(t + t * ax / (1.0 - ax))
    } else {
        0.5 * log1p((ax + ax) / (1.0 - ax))
    };
    if hx >= 0 {
        t
    } else {
        -t
    }
}

/// The C library's `exp`, as V8 computes it: fdlibm's, which V8 makes give `Math.E` for 1.
#[no_mangle]
pub extern "C" fn exp(x: f64) -> f64 {
    if x == 1.0 {
        return std::f64::consts::E;
    }
    libm::exp(x)
}

/// The C library's `cosh`, as V8 computes it (fdlibm's method, V8's expressions).
#[no_mangle]
pub extern "C" fn cosh(x: f64) -> f64 {
    const OVERFLOW: f64 = 710.475_860_073_943_9;
    let ix = high(x) & 0x7fff_ffff;
    let ax = x.abs();
    if ix < 0x3fd6_2e43 {
        // |x| <= ln2/2: 1 + expm1(|x|)^2 / (2 exp(|x|)).
        let t = expm1(ax);
        let w = 1.0 + t;
        return if ix < 0x3c80_0000 {
            w
        } else {
            1.0 + (t * t) / (w + w)
        };
    }
    if ix < 0x4036_0000 {
        // |x| < 22: (exp(|x|) + 1/exp(|x|)) / 2.
        let t = exp(ax);
        return 0.5 * t + 0.5 / t;
    }
    if ix < 0x4086_2e42 {
        return 0.5 * exp(ax);
    }
    if ax <= OVERFLOW {
        let w = exp(0.5 * ax);
        let t = 0.5 * w;
        return t * w;
    }
    match ix >= 0x7ff0_0000 {
        true => x * x, // ∞ or NaN
        false => f64::INFINITY,
    }
}

/// The C library's `asinh`, as V8 computes it (fdlibm's method).
#[no_mangle]
pub extern "C" fn asinh(x: f64) -> f64 {
    const LN2: f64 = std::f64::consts::LN_2;
    let ix = high(x) & 0x7fff_ffff;
    if ix >= 0x7ff0_0000 {
        return x + x; // ±∞ or NaN
    }
    if ix < 0x3e30_0000 {
        return x; // |x| < 2**-28
    }
    let ax = x.abs();
    let w = if ix > 0x41b0_0000 {
        log(ax) + LN2
    } else if ix > 0x4000_0000 {
        log(2.0 * ax + 1.0 / ((x * x + 1.0).sqrt() + ax))
    } else {
        let t = x * x;
        log1p(ax + t / (1.0 + (1.0 + t).sqrt()))
    };
    if x > 0.0 {
        w
    } else {
        -w
    }
}

/// The C library's `acosh`, as V8 computes it (fdlibm's method).
#[no_mangle]
pub extern "C" fn acosh(x: f64) -> f64 {
    const LN2: f64 = std::f64::consts::LN_2;
    let hx = high(x);
    if hx < 0x3ff0_0000 {
        f64::NAN // x < 1
    } else if hx >= 0x41b0_0000 {
        if hx >= 0x7ff0_0000 {
            x + x
        } else {
            log(x) + LN2
        }
    } else if x == 1.0 {
        0.0
    } else if hx > 0x4000_0000 {
        log(2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt()))
    } else {
        let t = x - 1.0;
        log1p(t + (2.0 * t + t * t).sqrt())
    }
}

/// The C library's `atan2`, as V8 computes it: where `|y/x|` passes 2**60 (both finite, not
/// zero), fdlibm answers ±π/2 whatever the sign of `x`; musl's only past 2**64.
#[no_mangle]
pub extern "C" fn atan2(y: f64, x: f64) -> f64 {
    const PI_O_2: f64 = f64::from_bits(0x3ff9_21fb_5444_2d18);
    const PI_LO: f64 = f64::from_bits(0x3ca1_a626_3314_5c07);
    let (iy, ix) = (high(y) & 0x7fff_ffff, high(x) & 0x7fff_ffff);
    let steep = (iy - ix) >> 20 > 60;
    if steep && y.is_finite() && x.is_finite() && y != 0.0 && x != 0.0 && x != 1.0 {
        let z = PI_O_2 + 0.5 * PI_LO;
        return if y < 0.0 { -z } else { z };
    }
    libm::atan2(y, x)
}

/// The C library's `cbrt`, as V8 computes it: FreeBSD's `s_cbrt.c` (fdlibm's heir, by Bruce
/// Evans), which V8's `ieee754::cbrt` is. glibc's and the `libm` crate's (now CORE-MATH's,
/// correctly rounded) differ from it in the last digit on 7.6% of inputs.
#[no_mangle]
pub extern "C" fn cbrt(x: f64) -> f64 {
    // (1023 - 1023/3 - 0.03306235651) * 2^20, and the same less 54/3 for subnormals.
    const B1: u32 = 715_094_163;
    const B2: u32 = 696_219_795;
    // |1/cbrt(x) - p(x)| < 2^-23.5 (1.87595182427177009643, -1.88497979543377169875,
    // 1.621429720105354466140, -0.758397934778766047437, 0.145996192886612446982).
    let p0 = f64::from_bits(0x3ffe_03e6_0f61_e692);
    let p1 = f64::from_bits(0xbffe_28e0_92f0_2420);
    let p2 = f64::from_bits(0x3ff9_f160_4a49_d6c2);
    let p3 = f64::from_bits(0xbfe8_44cb_bee7_51d9);
    let p4 = f64::from_bits(0x3fc2_b000_d4e4_edd7);
    let mut bits = x.to_bits();
    let mut hx = (bits >> 32) as u32 & 0x7fff_ffff;
    if hx >= 0x7ff0_0000 {
        // NaN and the infinities are their own cube roots.
        return x + x;
    }
    // A rough cube root, to 5 bits, from the exponent divided by 3.
    if hx < 0x0010_0000 {
        // Zero or subnormal: scaled by 2^54 first.
        bits = (x * f64::from_bits(0x4350_0000_0000_0000)).to_bits();
        hx = (bits >> 32) as u32 & 0x7fff_ffff;
        if hx == 0 {
            return x;
        }
        hx = hx / 3 + B2;
    } else {
        hx = hx / 3 + B1;
    }
    bits &= 1 << 63;
    bits |= u64::from(hx) << 32;
    let mut t = f64::from_bits(bits);
    // To 23 bits, with a polynomial of r = t^3 / x.
    let r = (t * t) * (t / x);
    t *= (p0 + r * (p1 + r * p2)) + ((r * r) * r) * (p3 + r * p4);
    // Rounded away from zero to 21 bits: t * t is then exact.
    t = f64::from_bits((t.to_bits() + 0x8000_0000) & 0xffff_ffff_c000_0000);
    // One Newton step to 53 bits.
    let s = t * t;
    let r = x / s;
    let w = t + t;
    let r = (r - t) / (w + r);
    t + t * r
}

/// Makes sure the definitions above are part of the link (an archive member is linked only when
/// something refers to it): called when a sandbox starts.
pub(crate) fn install() {
    let unary: [extern "C" fn(f64) -> f64; 19] = [
        exp, expm1, log, log10, log1p, log2, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh,
        asinh, acosh, atanh, cbrt,
    ];
    let binary: [extern "C" fn(f64, f64) -> f64; 2] = [pow, atan2];
    std::hint::black_box((unary, binary));
}

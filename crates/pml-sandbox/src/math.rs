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
//! - `exp`, `cosh`, `asinh`, `acosh`, `atan2`: the `libm` crate's or fdlibm's method, with V8's
//!   special cases and expressions.
//! - `cbrt`: FreeBSD's `s_cbrt.c`, as V8's.
//! - The rest: the `libm` crate (Rust's port of musl, itself FreeBSD's msun, fdlibm's heir),
//!   which gives V8's results where glibc does not.
//!
//! The C library's symbols are replaced for the whole process (`#[no_mangle]` definitions below):
//! the QuickJS engine is C code that calls `pow`, `sin`... by name, and a definition in the
//! executable takes precedence over the shared C library. They keep the C library's own special
//! cases where C and ECMAScript differ (`pow(1, NaN)` is 1 in C; QuickJS handles those before
//! it calls `pow`), so Rust code of the same process that uses `f64::powf` and the like gets
//! what it expects, within the same accuracy.
//!
//! Measured against Node 20 on 20,000 random inputs per function: `**`, `exp`, `expm1`,
//! `log2`, `tan`, `atan`, `atan2`, `asin`, `acos`, `sinh`, `cosh` and `Math.hypot` give V8's bits
//! everywhere; `log`, `log1p`, `atanh` all but 0.06-0.2% of inputs, `sin`, `cos`, `asinh`,
//! `acosh` all but 0.2-0.9% (V8's own `sin`/`cos` and fdlibm's `log` under `asinh`/`acosh`
//! are not reproduced here; glibc's differ on 2-28% of inputs). `tanh` (V8's bits) and `log10`
//! (all but 0.2%) stay glibc's; `cbrt` is V8's (FreeBSD's `s_cbrt.c`: glibc's and the `libm`
//! crate's differ on 7.6% of inputs). `tests/it/math.rs` runs a program of every kind of input in the sandbox and
//! in Node and compares the results.
//!
//! fdlibm's notice, which its licence asks to keep with its methods (`cosh`, `asinh`, `acosh`,
//! `atan2` below):
//!
//! > Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//! > Permission to use, copy, modify, and distribute this software is freely granted, provided
//! > that this notice is preserved.

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

from_libm!(expm1, log, log1p, log2, sin, cos, tan, asin, acos, atan, sinh, atanh);

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
    let unary: [extern "C" fn(f64) -> f64; 17] = [
        exp, expm1, log, log1p, log2, sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh,
        atanh, cbrt,
    ];
    let binary: [extern "C" fn(f64, f64) -> f64; 2] = [pow, atan2];
    std::hint::black_box((unary, binary));
}

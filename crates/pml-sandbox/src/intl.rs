//! `localeCompare`, `Intl.Collator`, `Intl.NumberFormat`, `Intl.DateTimeFormat` and the
//! `toLocaleString` of numbers, BigInts and dates as Node's ICU answers them, with ICU4X's
//! collator and decimal formatter and their compiled CLDR data, and ICU's date patterns as
//! Node 20 chooses them ([`date_table`]) and its currency patterns ([`CURRENCIES`]).
//!
//! QuickJS has no `Intl`; its `localeCompare` compares code points and its `toLocaleString`
//! is `toString`. Every context (code tasks' and programs') gets [`INTL`], a script that
//! defines `Intl.Collator`, `Intl.NumberFormat`, `Intl.DateTimeFormat`, `Intl.ListFormat` and
//! `Intl.PluralRules` over three native functions made here and the date and currency data,
//! and replaces `String.prototype.localeCompare`, `Number.prototype.toLocaleString`,
//! `BigInt.prototype.toLocaleString` and Date's
//! `toLocaleString`, `toLocaleDateString` and `toLocaleTimeString` with them (so
//! `Array.prototype.toLocaleString` follows), on first use ([`LAZY`]).
//! The options are read and checked in JavaScript, in ECMA-402's order and with V8's
//! messages; the natives get them resolved.
//!
//! **Covered:** collation with `sensitivity`, `numeric`, `caseFirst`, `ignorePunctuation`
//! (and the `-u-kn`/`-u-kf` locale extensions); decimal numbers, and percentages in the
//! ~110 locales of [`PERCENT`] (their patterns, minus signs and words for NaN), with
//! `minimumIntegerDigits`, `minimumFractionDigits`/`maximumFractionDigits`,
//! `minimumSignificantDigits`/`maximumSignificantDigits`, `useGrouping` and `signDisplay`
//! (`format` and `formatToParts`), rounded half away
//! from zero (ECMA-402's `halfExpand`); compact notation (`notation: "compact"`, short in the
//! ~110 locales of [`COMPACT`], long where its words do not depend on the number; compact
//! percentages and amounts in English), scientific and engineering notation in English;
//! numbers with a simple unit (`style: "unit"`, every `unitDisplay`) in English; amounts of
//! money (`style: "currency"`, every ISO
//! currency, `currencyDisplay` `symbol`, `narrowSymbol` or `code` (and `name` in English),
//! `currencySign`) in en-US,
//! en-GB, en-CA, en-AU, en-IN, de-DE, fr-FR, es-ES, it-IT, nl-NL, pt-BR and ja-JP
//! ([`CURRENCIES`]); dates in the 20 locales of [`date_table`] (English in nine regions, German, French,
//! Spanish, Dutch, Portuguese, Polish, Swedish, Russian, Japanese, Korean, Chinese) with any of
//! `weekday`, `year`, `month`, `day`, `hour`, `minute`, `second`, `fractionalSecondDigits`,
//! `timeZoneName`, `hour12`/`hourCycle`, or `dateStyle`/`timeStyle`, in UTC, in the
//! process's own time zone or in any time zone ICU knows by any of its names ([`ZONES`]; the
//! offsets from the IANA database 2025c that `jiff` bundles, Node 20's; the zones' names in
//! 2020-2035) (`format`, `formatToParts`, `resolvedOptions` with V8's quirks:
//! `hour12: false` in en-US is `h24`, the components read back from the pattern's text, U+202F
//! written as a space by `format`); `Intl.ListFormat` in en, en-US, en-GB, en-CA, en-AU and
//! en-IN, `Intl.PluralRules` (cardinal and ordinal, with the digit options) in English,
//! `Intl.RelativeTimeFormat` (every style and unit, `numeric` `always` or `auto`, `format`,
//! `formatToParts`) in the same English locales ([`RELATIVE`]).
//! **Not covered** (a `RangeError` saying so, never a
//! different answer): currencies in other locales, by name outside English, en-IN's accounting amounts,
//! percentages in other locales,
//! units outside English and compound units (`kilometer-per-hour`), scientific and engineering notation outside English, compact notation
//! elsewhere,
//! `signDisplay` with accounting amounts, other rounding modes; dates in other locales, with
//! `era` or `dayPeriod`, the names of a local time zone other than UTC, the names of a named
//! one outside 2020-2035 (or, generic, in an hour its clocks repeat),
//! `formatRange`; lists (`Intl.ListFormat`) and plural rules (`Intl.PluralRules`) outside
//! English; relative times outside English; the other `Intl` services do not exist. A locale is
//! resolved to its canonical tag (Node resolves to the best locale its ICU has: `fr-FR` is `fr`
//! for a collator there); with no locale it is `en-US`, Node's default.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use fixed_decimal::{
    Decimal, FloatPrecision, SignDisplay, SignedRoundingMode, UnsignedRoundingMode,
};
use icu_collator::options::{AlternateHandling, CaseLevel, CollatorOptions, Strength};
use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};
use icu_collator::{CollatorBorrowed, CollatorPreferences};
use icu_decimal::options::{DecimalFormatterOptions, GroupingStrategy};
use icu_decimal::{DecimalFormatter, DecimalFormatterPreferences};
use icu_locale_core::Locale;
use rquickjs::{Ctx, Exception, Function, Value};

/// Node's default locale.
const DEFAULT_LOCALE: &str = "en-US";

/// Collators and formatters made so far on this worker, by locale and options (a program
/// sorting with `localeCompare` makes one collator, not one per comparison).
#[derive(Default)]
pub(crate) struct IntlCache {
    /// By locale and `collate`'s flags.
    collators: RefCell<HashMap<(String, u32), Rc<CollatorBorrowed<'static>>>>,
    formatters: RefCell<HashMap<(String, u8), Rc<DecimalFormatter>>>,
    /// By locale: the group separator ICU's `"always"` puts in four-digit numbers where the
    /// locale's own minimum keeps them ungrouped (`None`: it groups them already).
    four_digit_separators: RefCell<HashMap<String, Option<Rc<str>>>>,
}

/// How many collators or formatters a worker keeps at most (the cache is emptied when full).
const CACHE_ENTRIES: usize = 64;

impl IntlCache {
    /// The collator for `locale` and `collate`'s `flags`.
    fn collator(
        &self,
        locale: &Locale,
        flags: u32,
    ) -> Result<Rc<CollatorBorrowed<'static>>, String> {
        let key = (locale.to_string(), flags);
        if let Some(collator) = self.collators.borrow().get(&key) {
            return Ok(collator.clone());
        }
        let sensitivity = (flags & 3) as u8;
        let numeric = flags & 4 != 0;
        let case_first = ((flags >> 3) & 3) as u8;
        let ignore_punctuation = flags & 32 != 0;
        let mut prefs = CollatorPreferences::from(locale);
        prefs.numeric_ordering = Some(match numeric {
            true => CollationNumericOrdering::True,
            false => CollationNumericOrdering::False,
        });
        prefs.case_first = match case_first {
            1 => Some(CollationCaseFirst::Upper),
            2 => Some(CollationCaseFirst::Lower),
            3 => Some(CollationCaseFirst::False),
            _ => prefs.case_first,
        };
        let mut options = CollatorOptions::default();
        // ECMA-402 sensitivity: base, accent, case, variant.
        options.strength = Some(match sensitivity {
            0 | 2 => Strength::Primary,
            1 => Strength::Secondary,
            _ => Strength::Tertiary,
        });
        if sensitivity == 2 {
            options.case_level = Some(CaseLevel::On);
        }
        if ignore_punctuation {
            options.alternate_handling = Some(AlternateHandling::Shifted);
        }
        let collator = CollatorBorrowed::try_new(prefs, options)
            .map_err(|e| format!("no collation data for {locale}: {e}"))?;
        let collator = Rc::new(collator);
        let mut collators = self.collators.borrow_mut();
        if collators.len() >= CACHE_ENTRIES {
            collators.clear();
        }
        collators.insert(key, collator.clone());
        Ok(collator)
    }

    fn formatter(&self, locale: &Locale, grouping: u8) -> Result<Rc<DecimalFormatter>, String> {
        let key = (locale.to_string(), grouping);
        if let Some(formatter) = self.formatters.borrow().get(&key) {
            return Ok(formatter.clone());
        }
        let mut options = DecimalFormatterOptions::default();
        options.grouping_strategy = Some(match grouping {
            0 => GroupingStrategy::Never,
            1 => GroupingStrategy::Always,
            2 => GroupingStrategy::Min2,
            _ => GroupingStrategy::Auto,
        });
        let formatter =
            DecimalFormatter::try_new(DecimalFormatterPreferences::from(locale), options)
                .map_err(|e| format!("no number data for {locale}: {e}"))?;
        let formatter = Rc::new(formatter);
        let mut formatters = self.formatters.borrow_mut();
        if formatters.len() >= CACHE_ENTRIES {
            formatters.clear();
        }
        formatters.insert(key, formatter.clone());
        Ok(formatter)
    }

    /// ICU's `"always"` groups from four integer digits on; ICU4X's `Always` keeps the
    /// locale's minimum of two digits in the first group (Spanish, Italian, Polish write
    /// `1000` but `10.000`): the separator to put back there, found once per locale from the
    /// formatter for `"always"`.
    fn four_digit_separator(&self, locale: &Locale, always: &DecimalFormatter) -> Option<Rc<str>> {
        let key = locale.to_string();
        if let Some(known) = self.four_digit_separators.borrow().get(&key) {
            return known.clone();
        }
        let separator = (always.format_to_string(&Decimal::from(1000)) == "1000")
            .then(|| {
                let ten_thousand = always.format_to_string(&Decimal::from(10000)).to_string();
                let separator: String = (ten_thousand.chars().skip(2))
                    .take_while(|c| !c.is_ascii_digit())
                    .collect();
                (!separator.is_empty()).then(|| Rc::from(separator))
            })
            .flatten();
        let mut separators = self.four_digit_separators.borrow_mut();
        if separators.len() >= CACHE_ENTRIES {
            separators.clear();
        }
        separators.insert(key, separator.clone());
        separator
    }
}

/// The locale a tag names, or the default for `undefined`; `None` for a tag that is not one.
fn locale_of(tag: Option<&str>) -> Option<Locale> {
    match tag {
        None => Some(DEFAULT_LOCALE.parse().ok()?),
        Some(tag) => Locale::try_from_str(tag).ok(),
    }
}

/// `canonical(tag)`: the canonical form of a BCP 47 tag, or `undefined` when it is not one.
fn canonical(tag: String) -> Option<String> {
    Locale::try_from_str(&tag).ok().map(|l| l.to_string())
}

/// The text of a JavaScript string as UTF-16 code units (lone surrogates kept).
fn units<'js>(ctx: &Ctx<'js>, s: &rquickjs::String<'js>) -> Vec<u16> {
    match s.to_string() {
        Ok(text) => text.encode_utf16().collect(),
        Err(_) => crate::worker::text_of(ctx, s)
            .map(|text| pml_jstext::utf16_units(&text))
            .unwrap_or_default(),
    }
}

/// The natives [`INTL`] is called with: `canonical(tag)`, `collate(a, b, locale, flags)`
/// (flags: sensitivity 0-3 base/accent/case/variant, 4 numeric, caseFirst 0-3
/// locale's/upper/lower/false << 3, 32 ignorePunctuation) and `formatNumber(value, locale,
/// [percent, minInt, minFrac, maxFrac, minSig (-1: none), maxSig, grouping 0-3
/// never/always/min2/auto, morePrecision 0-1, signDisplay 0-4 auto/never/always/exceptZero/
/// negative, exponent step 0/1/3 standard or compact/scientific/engineering, roundingMode 0-8
/// ceil/floor/expand/trunc/halfCeil/halfFloor/halfExpand/halfTrunc/halfEven, stripIfInteger
/// 0-1], compact)`, the value a number, or a decimal
/// literal (a BigInt's digits, a numeric string) formatted exactly, `compact` (optional) the
/// `[divisor, pattern]` of each magnitude in compact notation (see [`format_number`]).
pub(crate) fn natives<'js>(
    ctx: &Ctx<'js>,
    cache: &Rc<IntlCache>,
) -> rquickjs::Result<(Function<'js>, Function<'js>, Function<'js>)> {
    let canonical = Function::new(ctx.clone(), canonical)?;
    let collate = {
        let cache = cache.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  a: rquickjs::String<'js>,
                  b: rquickjs::String<'js>,
                  tag: Option<String>,
                  flags: u32|
                  -> rquickjs::Result<i32> {
                let locale = locale_of(tag.as_deref()).ok_or_else(|| {
                    Exception::throw_range(&ctx, "Incorrect locale information provided")
                })?;
                let collator = cache
                    .collator(&locale, flags)
                    .map_err(|e| Exception::throw_internal(&ctx, &e))?;
                let order = match (a.to_string(), b.to_string()) {
                    (Ok(a), Ok(b)) => collator.compare(&a, &b),
                    _ => collator.compare_utf16(&units(&ctx, &a), &units(&ctx, &b)),
                };
                Ok(order as i32)
            },
        )?
    };
    let format = {
        let cache = cache.clone();
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  value: Value<'js>,
                  tag: Option<String>,
                  digits: Vec<f64>,
                  compact: rquickjs::function::Opt<Option<Vec<rquickjs::Array<'js>>>>|
                  -> rquickjs::Result<String> {
                let locale = locale_of(tag.as_deref()).ok_or_else(|| {
                    Exception::throw_range(&ctx, "Incorrect locale information provided")
                })?;
                let at = |i: usize| digits.get(i).copied().unwrap_or(-1.0) as i16;
                let formatter = cache
                    .formatter(&locale, at(6) as u8)
                    .map_err(|e| Exception::throw_internal(&ctx, &e))?;
                let significant = (at(4) > 0).then(|| (at(4), at(5)));
                let compact = (compact.0.flatten())
                    .map(|magnitudes| {
                        magnitudes
                            .iter()
                            .map(|m| Ok((m.get::<i16>(0)?, m.get::<String>(1)?)))
                            .collect::<rquickjs::Result<Vec<_>>>()
                    })
                    .transpose()?;
                let digits = Digits {
                    percent: at(0) == 1,
                    min_int: at(1),
                    min_frac: at(2),
                    max_frac: at(3),
                    significant,
                    more_precision: at(7) == 1,
                    four_digit_separator: (at(6) == 1)
                        .then(|| cache.four_digit_separator(&locale, &formatter))
                        .flatten(),
                    exponent_step: at(9).max(0),
                    rounding: match at(10) {
                        0 => SignedRoundingMode::Ceil,
                        1 => SignedRoundingMode::Floor,
                        2 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::Expand),
                        3 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::Trunc),
                        4 => SignedRoundingMode::HalfCeil,
                        5 => SignedRoundingMode::HalfFloor,
                        7 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfTrunc),
                        8 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfEven),
                        _ => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand),
                    },
                    strip_if_integer: at(11) == 1,
                    sign_display: match at(8) {
                        1 => SignDisplay::Never,
                        2 => SignDisplay::Always,
                        3 => SignDisplay::ExceptZero,
                        4 => SignDisplay::Negative,
                        _ => SignDisplay::Auto,
                    },
                };
                format_number(&ctx, &formatter, value, &digits, compact.as_deref())
            },
        )?
    };
    Ok((canonical, collate, format))
}

/// What [`format_number`] is asked for (ECMA-402's resolved digit options).
struct Digits {
    percent: bool,
    min_int: i16,
    min_frac: i16,
    max_frac: i16,
    /// Minimum and maximum significant digits, when given (they win over fraction digits,
    /// unless `more_precision`).
    significant: Option<(i16, i16)>,
    /// `roundingPriority: "morePrecision"` (compact notation's default): of the significant
    /// and the fraction digits, those rounding at the lower place (significant on a tie).
    more_precision: bool,
    /// With `useGrouping: "always"` (or `true`), the separator of a four-digit integer part
    /// where ICU4X leaves it out ([`IntlCache::four_digit_separator`]).
    four_digit_separator: Option<Rc<str>>,
    /// `signDisplay`, applied to the rounded number.
    sign_display: SignDisplay,
    /// Scientific notation (1) or engineering (3): the exponent a multiple of it; 0 otherwise.
    exponent_step: i16,
    /// `roundingMode`.
    rounding: SignedRoundingMode,
    /// `trailingZeroDisplay: "stripIfInteger"`: no zeros after the point of an integer.
    strip_if_integer: bool,
}

/// `text` with `separator` after the first digit of its integer part when that part has four
/// digits (ICU's `"always"`, see [`IntlCache::four_digit_separator`]).
fn grouped_from_four_digits(text: String, separator: &str) -> String {
    let Some(start) = text.find(|c: char| c.is_ascii_digit()) else {
        return text;
    };
    let run = text[start..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len() - start);
    match run == 4 {
        true => [&text[..=start], separator, &text[start + 1..]].concat(),
        false => text,
    }
}

/// The native `stringWidth(text)` of `worker/inspect.js`: the columns a terminal gives `text`,
/// as Node's `getStringWidth` with ICU counts them (`node_i18n.cc`): East Asian wide and
/// fullwidth characters and emoji presentation 2, controls, format characters, nonspacing and
/// enclosing marks and emoji modifiers 0 (U+00AD 1), anything else 1; the characters of an
/// emoji sequence each count.
pub(crate) fn string_width<'js>(ctx: Ctx<'js>, text: rquickjs::String<'js>) -> u32 {
    use icu_properties::props::{
        EastAsianWidth, EmojiModifier, EmojiPresentation, GeneralCategory,
    };
    use icu_properties::{CodePointMapData, CodePointSetData};
    let east_asian = CodePointMapData::<EastAsianWidth>::new();
    let category = CodePointMapData::<GeneralCategory>::new();
    let presentation = CodePointSetData::new::<EmojiPresentation>();
    let modifier = CodePointSetData::new::<EmojiModifier>();
    let mut width = 0;
    // Emoji sequences are counted character by character (Node's `expand_emoji_sequence`).
    for c in char::decode_utf16(units(&ctx, &text)) {
        let c = c.map_or_else(|e| u32::from(e.unpaired_surrogate()), u32::from);
        let eaw = east_asian.get32(c);
        let wide = eaw == EastAsianWidth::Fullwidth || eaw == EastAsianWidth::Wide;
        // Ambiguous and neutral characters are narrow unless they are emoji.
        let emoji = (eaw == EastAsianWidth::Ambiguous || eaw == EastAsianWidth::Neutral)
            && presentation.contains32(c);
        width += if wide || emoji {
            2
        } else if c != 0xAD
            && (matches!(
                category.get32(c),
                GeneralCategory::Control
                    | GeneralCategory::Format
                    | GeneralCategory::EnclosingMark
                    | GeneralCategory::NonspacingMark
            ) || modifier.contains32(c))
        {
            0
        } else {
            1
        };
    }
    width
}

/// A number (or BigInt) as the decimal formatter writes it, rounded as ECMA-402 says. With
/// `compact` (compact notation: for each magnitude 0, 1, ... of the number, the power of ten
/// its digits are divided by and the pattern around them, `#` the digits; the last stands for
/// every larger magnitude), the number is divided and written into its magnitude's pattern
/// as ICU does it: the magnitude chosen again when rounding carries into the next one.
fn format_number<'js>(
    ctx: &Ctx<'js>,
    formatter: &DecimalFormatter,
    value: Value<'js>,
    digits: &Digits,
    compact: Option<&[(i16, String)]>,
) -> rquickjs::Result<String> {
    // A percentage's sign, pattern and words are `intl.js`'s (`intl_percent.json`): this
    // writes the digits of 100 times its (absolute) value.
    let mut decimal = if let Some(n) = value.as_number() {
        if n.is_nan() {
            return Ok("NaN".to_owned());
        }
        if n.is_infinite() {
            // With the locale's sign (U+2212 in Swedish).
            let mut one = Decimal::from(if n < 0.0 { -1 } else { 1 });
            one.apply_sign_display(digits.sign_display);
            // Its one digit, in the locale's script (`١` in ar-EG), made the sign of infinity.
            let text = formatter.format_to_string(&one).to_string();
            return Ok(match text.char_indices().find(|(_, c)| c.is_numeric()) {
                Some((at, c)) => [&text[..at], "∞", &text[at + c.len_utf8()..]].concat(),
                None => text,
            });
        }
        Decimal::try_from_f64(n, FloatPrecision::RoundTrip)
            .map_err(|e| Exception::throw_range(ctx, &format!("{e:?}")))?
    } else if let Some(digits) = value.as_string() {
        // A BigInt's digits, or a decimal literal (`-1.5e3`) to be formatted exactly.
        let digits = digits.to_string()?;
        Decimal::try_from_str(&digits)
            .map_err(|e| Exception::throw_range(ctx, &format!("{e:?}")))?
    } else {
        return Err(Exception::throw_type(ctx, "not a number"));
    };
    if digits.percent {
        decimal.multiply_pow10(2);
    }
    // The power of ten the digits are divided by, by the number's magnitude: compact
    // notation's table, scientific notation's magnitude (one integer digit), engineering's
    // multiple of three (one to three).
    let compact = compact.filter(|c| !c.is_empty());
    let entry = |m: i16| {
        let table = compact.unwrap_or_default();
        &table[usize::try_from(m)
            .unwrap_or(0)
            .min(table.len().saturating_sub(1))]
    };
    let divisor_of = |m: i16| match (digits.exponent_step, compact) {
        (1, _) => Some(m),
        (3, _) => Some(m - m.rem_euclid(3)),
        (_, Some(_)) => Some(if m < 0 { 0 } else { entry(m).0 }),
        _ => None,
    };
    let mut divided = None;
    match divisor_of(0) {
        None => round(&mut decimal, digits),
        Some(_) => {
            let top = decimal.absolute.nonzero_magnitude_start();
            let divisor = match decimal.absolute.is_zero() {
                true => 0,
                false => divisor_of(top).unwrap_or(0),
            };
            decimal.multiply_pow10(-divisor);
            round(&mut decimal, digits);
            let mut divisor = divisor;
            let next = divisor_of(top + 1).unwrap_or(0);
            if !decimal.absolute.is_zero()
                && decimal.absolute.nonzero_magnitude_start() != top - divisor
                && next != divisor
            {
                // Rounding carried into a magnitude divided otherwise: the rounded digits are
                // divided again and rounded again (ICU's `chooseMultiplierAndApply`).
                decimal.multiply_pow10(divisor - next);
                round(&mut decimal, digits);
                divisor = next;
            }
            divided = Some(divisor);
        }
    }
    let pattern = match (divided, compact) {
        (Some(divisor), Some(_)) if digits.exponent_step == 0 => {
            let magnitude = match decimal.absolute.is_zero() {
                true => 0,
                false => decimal.absolute.nonzero_magnitude_start() + divisor,
            };
            (magnitude >= 0).then(|| entry(magnitude).1.clone())
        }
        // Scientific and engineering (English): the exponent after an `E`.
        (Some(divisor), _) => Some(format!("#E{divisor}")),
        _ => None,
    };
    decimal.absolute.pad_start(digits.min_int);
    decimal.apply_sign_display(digits.sign_display);
    let mut text = formatter.format_to_string(&decimal).to_string();
    if let Some(separator) = &digits.four_digit_separator {
        text = grouped_from_four_digits(text, separator);
    }
    Ok(match pattern {
        Some(pattern) => pattern.replacen('#', &text, 1),
        None => text,
    })
}

/// Rounds `decimal` in the `roundingMode` asked (ECMA-402's default `halfExpand`: half away
/// from zero) to the digits asked, and pads it with the zeros they ask for (none after the
/// point of an integer with `stripIfInteger`).
fn round(decimal: &mut Decimal, digits: &Digits) {
    // Rounding pads with zeros down to where it rounds: round only where there are digits.
    let round_at = |decimal: &mut Decimal, position: i16| {
        if !decimal.absolute.is_zero() && decimal.absolute.nonzero_magnitude_end() < position {
            decimal.round_with_mode(position, digits.rounding);
        }
    };
    let integer = |decimal: &Decimal| {
        decimal.absolute.is_zero() || decimal.absolute.nonzero_magnitude_end() >= 0
    };
    let top = decimal.absolute.nonzero_magnitude_start();
    let significant = digits
        .significant
        .filter(|&(_, max_sig)| !digits.more_precision || top - max_sig < -digits.max_frac);
    match significant {
        Some((min_sig, max_sig)) => {
            round_at(decimal, top - max_sig + 1);
            let top = decimal.absolute.nonzero_magnitude_start();
            match digits.strip_if_integer && integer(decimal) {
                true => decimal.absolute.trim_end(),
                false => decimal.absolute.pad_end((top - min_sig + 1).min(0)),
            }
        }
        None => {
            round_at(decimal, -digits.max_frac);
            match digits.strip_if_integer && integer(decimal) {
                true => decimal.absolute.trim_end(),
                false => decimal.absolute.pad_end(-digits.min_frac),
            }
        }
    }
}

/// The table of a locale dates are formatted in: the pattern Node 20's ICU chooses for every
/// combination of `Intl.DateTimeFormat`'s options, and its names; written by
/// `tools/intl-dates.mjs` (run in Node 20), one file per locale, read by [`INTL`] when a
/// program first formats a date in that locale (a language alone has its likeliest region's,
/// as ICU's data has it). `None`: pml formats no dates in it.
fn date_table(locale: &str) -> Option<&'static str> {
    Some(match locale {
        "de" | "de-DE" => include_str!("intl_dates/de-DE.json"),
        "en-AU" => include_str!("intl_dates/en-AU.json"),
        "en-CA" => include_str!("intl_dates/en-CA.json"),
        "en-GB" => include_str!("intl_dates/en-GB.json"),
        "en-IE" => include_str!("intl_dates/en-IE.json"),
        "en-IN" => include_str!("intl_dates/en-IN.json"),
        "en-NZ" => include_str!("intl_dates/en-NZ.json"),
        "en-SG" => include_str!("intl_dates/en-SG.json"),
        "en" | "en-US" => include_str!("intl_dates/en-US.json"),
        "en-ZA" => include_str!("intl_dates/en-ZA.json"),
        "es" | "es-ES" => include_str!("intl_dates/es-ES.json"),
        "fr" | "fr-FR" => include_str!("intl_dates/fr-FR.json"),
        "ja" | "ja-JP" => include_str!("intl_dates/ja-JP.json"),
        "ko" | "ko-KR" => include_str!("intl_dates/ko-KR.json"),
        "nl" | "nl-NL" => include_str!("intl_dates/nl-NL.json"),
        "pl" | "pl-PL" => include_str!("intl_dates/pl-PL.json"),
        "pt" | "pt-BR" => include_str!("intl_dates/pt-BR.json"),
        "ru" | "ru-RU" => include_str!("intl_dates/ru-RU.json"),
        "sv" | "sv-SE" => include_str!("intl_dates/sv-SE.json"),
        "zh" | "zh-CN" => include_str!("intl_dates/zh-CN.json"),
        _ => return None,
    })
}

/// For each locale currencies are formatted in, the patterns of amounts and the currencies'
/// symbols, and each currency's fraction digits, as Node 20's ICU has them: written by
/// `tools/intl-currencies.mjs`, read by [`INTL`].
pub(crate) const CURRENCIES: &str = include_str!("intl_currencies.json");

/// For each English locale relative times are formatted in, the patterns and words of every
/// style and unit as Node 20's ICU has them: written by `tools/intl-relative.mjs`, read by
/// [`INTL`].
pub(crate) const RELATIVE: &str = include_str!("intl_relative.json");

/// For each locale numbers are written in compact notation in, for `compactDisplay` "short"
/// and "long", the power of ten a number of each magnitude is divided by and the pattern
/// around its digits, as Node 20's ICU has them: written by `tools/intl-compact.mjs` (which
/// checks them against Node), read by [`INTL`].
pub(crate) const COMPACT: &str = include_str!("intl_compact.json");

/// For each locale percentages are formatted in, the patterns of positive and negative ones
/// and the words for NaN and infinity as Node 20's ICU has them: written by
/// `tools/intl-percent.mjs` (which checks them against Node), read by [`INTL`].
pub(crate) const PERCENT: &str = include_str!("intl_percent.json");

/// For each English locale, the pattern of every simple unit in every `unitDisplay` and
/// plural form, as Node 20's ICU has them: written by `tools/intl-units.mjs` (which checks
/// them against Node), read by [`INTL`].
pub(crate) const UNITS: &str = include_str!("intl_units.json");

/// The time zones `Intl.DateTimeFormat` accepts as Node 20's ICU does (each name and the ID it
/// resolves to) and their names in the English locales dates are formatted in: written by
/// `tools/intl-zones.mjs`, read by [`INTL`].
pub(crate) const ZONES: &str = include_str!("intl_zones.json");

/// The native `zoneOffset(zone, t)` of [`INTL`]: how many minutes east of UTC the IANA time
/// zone `zone` is at the instant `t` (milliseconds since the epoch), from the database `jiff`
/// bundles (never the machine's); `None` (`undefined`) for a zone it does not have.
pub(crate) fn zone_offset(zone: String, t: f64) -> Option<f64> {
    let zone = jiff::tz::TimeZone::get(&zone).ok()?;
    let instant = jiff::Timestamp::from_millisecond(t as i64).ok()?;
    Some(f64::from(zone.to_offset(instant).seconds()) / 60.0)
}

/// The native `loadRelative()` of [`INTL`]: [`RELATIVE`] parsed.
pub(crate) fn relative<'js>(ctx: Ctx<'js>) -> rquickjs::Result<Value<'js>> {
    ctx.json_parse(RELATIVE)
}

/// The native `loadTable(name)` of [`INTL`]: [`PERCENT`] (`"percent"`), [`COMPACT`]
/// (`"compact"`), [`ZONES`] (`"zones"`), [`UNITS`] (`"units"`) or [`CURRENCIES`] (any other
/// name) parsed.
pub(crate) fn table<'js>(ctx: Ctx<'js>, name: String) -> rquickjs::Result<Value<'js>> {
    match name.as_str() {
        "percent" => ctx.json_parse(PERCENT),
        "compact" => ctx.json_parse(COMPACT),
        "zones" => ctx.json_parse(ZONES),
        "units" => ctx.json_parse(UNITS),
        _ => ctx.json_parse(CURRENCIES),
    }
}

/// The native `loadDates(locale)` of [`INTL`]: the locale's [`date_table`] parsed, or
/// `undefined`.
pub(crate) fn dates<'js>(ctx: Ctx<'js>, locale: String) -> rquickjs::Result<Value<'js>> {
    match date_table(&locale) {
        Some(table) => ctx.json_parse(table),
        None => Ok(Value::new_undefined(ctx)),
    }
}

/// The IANA name of the time zone this process's local time is in, as ICU finds it: `TZ`
/// (without a leading `:`), else `/etc/timezone`, else where `/etc/localtime` links into a
/// zoneinfo directory; `UTC` when none says. Found once per process.
pub(crate) fn local_zone() -> String {
    static ZONE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ZONE.get_or_init(find_local_zone).clone()
}

fn find_local_zone() -> String {
    fn zoneinfo_name(path: &std::path::Path) -> Option<String> {
        let text = path.to_str()?;
        let at = text.find("zoneinfo/")?;
        Some(text[at + "zoneinfo/".len()..].to_string())
    }
    if let Ok(tz) = std::env::var("TZ") {
        let tz = tz.strip_prefix(':').unwrap_or(&tz);
        if tz.starts_with('/') {
            if let Some(name) = zoneinfo_name(std::path::Path::new(tz)) {
                return name;
            }
        } else if !tz.is_empty() {
            return tz.to_string();
        }
    }
    if let Ok(text) = std::fs::read_to_string("/etc/timezone") {
        let name = text.trim();
        if !name.is_empty() {
            return name.to_string();
        }
    }
    if let Some(name) = std::fs::read_link("/etc/localtime")
        .ok()
        .as_deref()
        .and_then(zoneinfo_name)
    {
        return name;
    }
    "UTC".to_string()
}

/// The script that installs `Intl` and the locale methods (see the module doc): a function of
/// the natives of [`natives`]. Run by [`LAZY`]'s `load` the first time a context uses them.
pub(crate) const INTL: &str = include_str!("intl.js");

/// The long name V8 ends `Date.prototype.toString` with for the local time zone, when pml
/// knows it: that of UTC (and its aliases), where programs mostly run.
pub(crate) fn local_zone_long_name() -> Option<&'static str> {
    const UTC: [&str; 18] = [
        "UTC",
        "ETC/UTC",
        "GMT",
        "ETC/GMT",
        "UCT",
        "ETC/UCT",
        "UNIVERSAL",
        "ETC/UNIVERSAL",
        "ZULU",
        "ETC/ZULU",
        "GMT0",
        "ETC/GMT0",
        "GMT+0",
        "ETC/GMT+0",
        "GMT-0",
        "ETC/GMT-0",
        "GREENWICH",
        "ETC/GREENWICH",
    ];
    static UTC_HERE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let utc = *UTC_HERE.get_or_init(|| UTC.contains(&local_zone().to_ascii_uppercase().as_str()));
    utc.then_some("Coordinated Universal Time")
}

/// The script every context runs, a function of the native `load()` (which runs [`INTL`]) and
/// of the local time zone's long name ([`local_zone_long_name`]):
/// `Intl` (an accessor until then), `localeCompare` and the `toLocale*String` of numbers,
/// BigInts and dates load the real ones when first used, then act as them. Making them all in every
/// context would cost a code task more than the task itself.
pub(crate) const LAZY: &str = r#"(function (load, zoneName) {
  "use strict";
  const define = Object.defineProperty;
  const apply = Reflect.apply;
  // V8 ends a date's text with the local time zone's name: `... GMT+0000 (Coordinated
  // Universal Time)`; elsewhere than in UTC, its long name at that date, as `Intl` has it
  // (`Central European Summer Time`; none where pml does not know it).
  const getTime = Date.prototype.getTime;
  let longName;
  const nameAt = (t) => {
    if (zoneName !== undefined) return zoneName;
    try {
      if (longName === undefined) longName = new globalThis.Intl.DateTimeFormat("en-US", { timeZoneName: "long" });
      const parts = longName.formatToParts(t);
      for (let i = 0; i < parts.length; i++) if (parts[i].type === "timeZoneName") return parts[i].value;
    } catch {}
    return undefined;
  };
  for (const name of ["toString", "toTimeString"]) {
    const original = Date.prototype[name];
    const named = { [name]() {
      const text = apply(original, this, []);
      if (text === "Invalid Date") return text;
      const zone = nameAt(apply(getTime, this, []));
      return zone === undefined ? text : `${text} (${zone})`;
    } }[name];
    define(Date.prototype, name, { value: named, writable: true, enumerable: false, configurable: true });
  }
  let loaded = false;
  const ensure = () => {
    if (!loaded) {
      loaded = true;
      load();
    }
  };
  const lazy = (object, name, length) => {
    const stub = { [name](...args) {
      ensure();
      const real = object[name];
      // Still the stub: the program froze the prototype before the first use.
      if (real === stub) throw new TypeError(`pml: ${name} cannot be loaded into a frozen prototype`);
      return apply(real, this, args);
    } }[name];
    define(stub, "length", { value: length, configurable: true });
    define(object, name, { value: stub, writable: true, enumerable: false, configurable: true });
  };
  lazy(String.prototype, "localeCompare", 1);
  lazy(Number.prototype, "toLocaleString", 0);
  lazy(BigInt.prototype, "toLocaleString", 0);
  lazy(Date.prototype, "toLocaleString", 0);
  lazy(Date.prototype, "toLocaleDateString", 0);
  lazy(Date.prototype, "toLocaleTimeString", 0);
  define(globalThis, "Intl", {
    get() { ensure(); return globalThis.Intl; },
    set(value) { define(globalThis, "Intl", { value, writable: true, enumerable: false, configurable: true }); },
    enumerable: false,
    configurable: true,
  });
})"#;

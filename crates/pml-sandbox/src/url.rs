//! The WHATWG URL parser behind a program's `URL` (`worker/web.js`): the `url` crate, whose
//! `quirks` module is the URL Standard's API (what Node's `URL` implements), as two natives.
//!
//! A URL crosses as its components, in the order [`COMPONENTS`] names them.

use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object};
use url::{quirks, Url};

/// The components of a URL as `web.js` reads them.
pub(crate) const COMPONENTS: [&str; 11] = [
    "href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname",
    "search", "hash",
];

fn components(url: &Url) -> Vec<String> {
    let parts = vec![
        quirks::href(url).to_owned(),
        quirks::origin(url),
        quirks::protocol(url).to_owned(),
        quirks::username(url).to_owned(),
        quirks::password(url).to_owned(),
        quirks::host(url).to_owned(),
        quirks::hostname(url).to_owned(),
        quirks::port(url).to_owned(),
        quirks::pathname(url).to_owned(),
        quirks::search(url).to_owned(),
        quirks::hash(url).to_owned(),
    ];
    debug_assert_eq!(parts.len(), COMPONENTS.len());
    parts
}

/// `input` parsed against `base` (itself parsed first): its components, or `None` where
/// `new URL(input, base)` throws.
fn parse(input: String, base: Opt<String>) -> Option<Vec<String>> {
    let base = match base.0 {
        Some(base) => Some(Url::parse(&base).ok()?),
        None => None,
    };
    let url = Url::options().base_url(base.as_ref()).parse(&input).ok()?;
    Some(components(&url))
}

/// URL `href` with its component `which` set to `value` as the URL Standard's setter sets it
/// (a value it refuses leaves the URL as it was): its components, or `None` when `href` is set
/// to what does not parse (the setter then throws).
fn set(href: String, which: String, value: String) -> Option<Vec<String>> {
    let mut url = Url::parse(&href).ok()?;
    let url_ref = &mut url;
    match which.as_str() {
        "href" => quirks::set_href(url_ref, &value).ok()?,
        "protocol" => quirks::set_protocol(url_ref, &value).unwrap_or(()),
        "username" => quirks::set_username(url_ref, &value).unwrap_or(()),
        "password" => quirks::set_password(url_ref, &value).unwrap_or(()),
        "host" => quirks::set_host(url_ref, &value).unwrap_or(()),
        "hostname" => quirks::set_hostname(url_ref, &value).unwrap_or(()),
        "port" => quirks::set_port(url_ref, &value).unwrap_or(()),
        "pathname" => quirks::set_pathname(url_ref, &value),
        "search" => quirks::set_search(url_ref, &value),
        "hash" => quirks::set_hash(url_ref, &value),
        _ => {}
    }
    Some(components(&url))
}

/// `{ parse, set }` for `web.js`.
pub(crate) fn natives<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
    let natives = Object::new(ctx.clone())?;
    natives.set("parse", Function::new(ctx.clone(), parse)?)?;
    natives.set("set", Function::new(ctx.clone(), set)?)?;
    natives.set("digest", Function::new(ctx.clone(), digest_native)?)?;
    Ok(natives)
}

/// `digest(name, bytes)` behind `crypto.subtle.digest`: the digest of `bytes` (a
/// `Uint8Array`) by `name` (`SHA-1`, `SHA-256`, `SHA-384`, `SHA-512`, as the web script names
/// them) as an `ArrayBuffer`; `undefined` for another name.
fn digest_native<'js>(
    ctx: Ctx<'js>,
    name: String,
    bytes: rquickjs::TypedArray<'js, u8>,
) -> rquickjs::Result<Option<rquickjs::ArrayBuffer<'js>>> {
    // SAFETY: no JavaScript runs while the slice lives (the digest is computed here, before
    // this function returns), so nothing can write into, detach or move its buffer.
    let out = digest(&name, unsafe { bytes.as_bytes() }.unwrap_or(&[]));
    match out {
        Some(out) => rquickjs::ArrayBuffer::new(ctx, out).map(Some),
        None => Ok(None),
    }
}

/// The digest of `data` by `name` (see [`digest_native`]).
fn digest(name: &str, data: &[u8]) -> Option<Vec<u8>> {
    use sha2::Digest;
    Some(match name {
        "SHA-1" => sha1::Sha1::digest(data).to_vec(),
        "SHA-256" => sha2::Sha256::digest(data).to_vec(),
        "SHA-384" => sha2::Sha384::digest(data).to_vec(),
        "SHA-512" => sha2::Sha512::digest(data).to_vec(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_as_the_url_standard_says() {
        let parts = parse(
            "../c?x=1#h".into(),
            Opt(Some("https://u:p@ex.org:8080/a/b".into())),
        )
        .unwrap();
        let named: Vec<(&str, &str)> = COMPONENTS
            .iter()
            .copied()
            .zip(parts.iter().map(String::as_str))
            .collect();
        assert_eq!(
            named,
            [
                ("href", "https://u:p@ex.org:8080/c?x=1#h"),
                ("origin", "https://ex.org:8080"),
                ("protocol", "https:"),
                ("username", "u"),
                ("password", "p"),
                ("host", "ex.org:8080"),
                ("hostname", "ex.org"),
                ("port", "8080"),
                ("pathname", "/c"),
                ("search", "?x=1"),
                ("hash", "#h"),
            ]
        );
        assert_eq!(parse("no scheme".into(), Opt(None)), None);
        let set_port = set("http://a.org/".into(), "port".into(), "80".into()).unwrap();
        assert_eq!(set_port[0], "http://a.org/");
        assert_eq!(
            set("http://a.org/".into(), "href".into(), "nope".into()),
            None
        );
    }
}

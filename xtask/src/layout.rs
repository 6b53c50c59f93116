//! Checks of the workspace's layout that no compiler makes: which crates read JavaScript.
//!
//! JavaScript is read by SWC once, in `pml-structure` (the builder): later stages take what
//! it built, never the text again. A crate that starts parsing JavaScript (a dependency on an
//! SWC crate, or SWC named in its sources) fails the tests below, as does one that looks into
//! a text the builder wrote for its element mark (`"[*]"` spelled out: they ask the text's
//! `Leaves`).

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Whether `text` (a manifest or a source file) names an SWC crate.
    fn names_swc(text: &str) -> bool {
        [
            "swc_ecma_parser",
            "swc_ecma_ast",
            "swc_ecma_visit",
            "swc_common",
            "swc_atoms",
        ]
        .iter()
        .any(|c| text.contains(c))
    }

    /// The crate's manifest or any of its sources names an SWC crate.
    fn reads_javascript(dir: &Path) -> bool {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        names_swc(&manifest) || sources(dir).iter().any(|(_, text)| names_swc(text))
    }

    /// The sources of `dir` (its `src/`), with their paths.
    fn sources(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
        let mut pending = vec![dir.join("src")];
        let mut out = Vec::new();
        while let Some(d) = pending.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    out.push((path, text));
                }
            }
        }
        out
    }

    #[test]
    fn no_later_stage_looks_for_the_element_mark_in_a_text() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&crates).expect("crates/").flatten() {
            if entry.file_name() == "pml-structure" {
                continue;
            }
            for (path, text) in sources(&entry.path()) {
                if text.contains("\"[*]\"") {
                    found.push(path.display().to_string());
                }
            }
        }
        assert!(
            found.is_empty(),
            "these sources spell the builder's element mark: ask the text's Leaves instead: {found:?}"
        );
    }

    #[test]
    fn only_the_builder_reads_javascript() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
        let mut readers = Vec::new();
        for entry in std::fs::read_dir(&crates).expect("crates/").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().join("Cargo.toml").exists() && reads_javascript(&entry.path()) {
                readers.push(name);
            }
        }
        readers.sort();
        assert_eq!(
            readers,
            ["pml-structure"],
            "the crates that read JavaScript (SWC in their manifest or sources) are not the \
             builder alone: a stage must take what pml-structure built instead"
        );
    }
}

//! Checks of the workspace's layout that no compiler makes: which crates read JavaScript.
//!
//! JavaScript is read by SWC once, in `pml-structure` (the builder): later stages take what
//! it built, never the text again. A crate that starts parsing JavaScript (a dependency on an
//! SWC crate, or SWC named in its sources) fails the test below.

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
        let mut pending = vec![dir.join("src")];
        let mut found = names_swc(&manifest);
        while let Some(d) = pending.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    found |= names_swc(&std::fs::read_to_string(&path).unwrap_or_default());
                }
            }
        }
        found
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

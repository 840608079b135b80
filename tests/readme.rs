//! The README shows `examples/readme.rs` as it is, and documents every preset.

#[test]
fn the_readme_library_example_is_examples_readme_rs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/readme.rs")).unwrap();
    let marker = "<!-- examples/readme.rs: kept identical by tests/readme.rs -->\n```rust\n";
    let start = readme.find(marker).expect("README has the library example") + marker.len();
    let end = start + readme[start..].find("```\n").expect("closing fence");
    assert!(
        readme[start..end] == example,
        "README's library example differs from examples/readme.rs: copy the file into it"
    );
}

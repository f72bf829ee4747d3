//! The parser on the hand-written corpus (`experiments/corpus`): every file of a valid
//! program parses without a diagnostic, and no file of any program makes it panic.

use std::path::{Path, PathBuf};

use shared_frontend::syntax::parser::parse_file;

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn corpus(sub: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../experiments/corpus")
        .join(sub);
    let mut files = Vec::new();
    rs_files(&dir, &mut files);
    files.sort();
    files
}

#[test]
fn valid_programs_parse_cleanly() {
    let files = corpus("run");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let (_, diags) = parse_file(&text);
        for d in diags {
            failures.push(format!(
                "{}: {} {:?}",
                f.display(),
                d.message,
                d.labels.first().map(|l| l.span)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The 1-based lines that carry an error annotation (`//~ ERROR`, `//~^ ERROR`,
/// `//~| ERROR`), as the corpus README describes them.
fn annotated_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut last = 0;
    for (i, line) in text.lines().enumerate() {
        let Some(at) = line.find("//~") else {
            continue;
        };
        let marker = &line[at + 3..];
        let line_no = if marker.starts_with('|') {
            last
        } else {
            let ups = marker.bytes().take_while(|&b| b == b'^').count();
            i + 1 - ups
        };
        lines.push(line_no);
        last = line_no;
    }
    lines
}

/// For rejected programs, whatever the parser reports first must be on a line where rustc
/// (or, for `unsupported/`, the subset) reports an error.
#[test]
fn rejected_programs_fail_on_annotated_lines() {
    let mut failures = Vec::new();
    let mut reported = 0;
    for sub in ["fail", "unsupported"] {
        for f in corpus(sub) {
            let text = std::fs::read_to_string(&f).expect("read");
            let (_, diags) = parse_file(&text);
            let Some(first) = diags.first() else {
                continue;
            };
            reported += 1;
            let lo = first.labels.first().map_or(0, |l| l.span.lo as usize);
            let line = text[..lo].matches('\n').count() + 1;
            if !annotated_lines(&text).contains(&line) {
                failures.push(format!("{}:{line}: {}", f.display(), first.message));
            }
        }
    }
    assert!(
        reported > 50,
        "the parser rejects only {reported} corpus programs"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! Codex's `apply_patch` text, read as the edits it makes: what a fix's
//! steps hold for Claude Code's Edit and Write.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: notes/todo.txt
//! +one
//! *** Delete File: gone.txt
//! *** Update File: report.py
//! *** Move to: src/report.py        (optional: the file is renamed)
//! @@ def main():                    (a hunk; its header only locates it)
//!  context
//! -removed
//! +added
//! *** End of File                   (optional)
//! *** End Patch
//! ```
//!
//! Each hunk of an updated file becomes one edit, the text before (its
//! context and removed lines) and after (its context and added lines), as
//! an Edit's `old_string` → `new_string`; an added file is a Write of its
//! lines; a deleted file is the `rm` it amounts to, a moved one the `mv`.
//! Reading is lenient as Codex's own parser is (a missing `@@` before the
//! first hunk, blank lines inside a hunk as empty context) and bounded: a
//! hostile patch costs at most `MAX_CHANGES` changes of `MAX_SIDE`
//! characters a side.

/// What one patch does, file by file, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    /// A file renamed (before its hunks, which apply to the new path).
    Move {
        from: String,
        to: String,
    },
    Edit {
        path: String,
        before: String,
        after: String,
    },
}

/// At most this many changes are read from one patch (the rest is left
/// out: a fix keeps its last few edits anyway).
pub const MAX_CHANGES: usize = 32;
/// Each side of an edit, and an added file, is cut at this many
/// characters (the hook scripts read no more of an edit).
const MAX_SIDE: usize = 20_000;

/// The changes of a patch, or None when the text is not a patch.
pub fn parse(text: &str) -> Option<Vec<Change>> {
    let mut lines = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    // the text before "*** Begin Patch" (a heredoc's first line) is not read
    lines.by_ref().find(|l| l.trim() == "*** Begin Patch")?;
    let mut changes = Vec::new();
    let mut file: Option<File> = None;
    for line in lines {
        if changes.len() >= MAX_CHANGES {
            break;
        }
        let Some(header) = line.strip_prefix("*** ").map(str::trim_end) else {
            if let Some(f) = file.as_mut() {
                f.line(line, &mut changes);
            }
            continue;
        };
        if header == "End of File" {
            continue;
        }
        if let Some(to) = header.strip_prefix("Move to: ") {
            // the file just named is renamed; its hunks apply to the new path
            if let Some(f) = file.as_mut().filter(|f| f.kind == Kind::Update) {
                f.hunk_done(&mut changes);
                let to = to.trim().to_owned();
                changes.push(Change::Move {
                    from: std::mem::replace(&mut f.path, to.clone()),
                    to,
                });
            }
            continue;
        }
        if let Some(f) = file.take() {
            f.finish(&mut changes);
        }
        if header == "End Patch" {
            break;
        } else if let Some(path) = header.strip_prefix("Add File: ") {
            file = Some(File::new(Kind::Add, path));
        } else if let Some(path) = header.strip_prefix("Delete File: ") {
            changes.push(Change::Delete {
                path: path.trim().to_owned(),
            });
        } else if let Some(path) = header.strip_prefix("Update File: ") {
            file = Some(File::new(Kind::Update, path));
        }
    }
    if let Some(f) = file.take() {
        f.finish(&mut changes);
    }
    changes.truncate(MAX_CHANGES);
    Some(changes)
}

#[derive(PartialEq)]
enum Kind {
    Add,
    Update,
}

/// A file being read: an added file's lines, or an updated file's current hunk.
struct File {
    kind: Kind,
    path: String,
    before: Vec<String>,
    after: Vec<String>,
    /// Whether the current hunk changed anything yet.
    changed: bool,
}

impl File {
    fn new(kind: Kind, path: &str) -> File {
        File {
            kind,
            path: path.trim().to_owned(),
            before: Vec::new(),
            after: Vec::new(),
            changed: false,
        }
    }

    fn line(&mut self, line: &str, changes: &mut Vec<Change>) {
        match self.kind {
            Kind::Add => {
                if let Some(text) = line.strip_prefix('+') {
                    self.after.push(text.to_owned());
                }
            }
            Kind::Update => {
                if line.starts_with("@@") {
                    self.hunk_done(changes);
                } else if let Some(text) = line.strip_prefix('-') {
                    self.before.push(text.to_owned());
                    self.changed = true;
                } else if let Some(text) = line.strip_prefix('+') {
                    self.after.push(text.to_owned());
                    self.changed = true;
                } else {
                    let text = line.strip_prefix(' ').unwrap_or(line);
                    self.before.push(text.to_owned());
                    self.after.push(text.to_owned());
                }
            }
        }
    }

    /// The hunk read so far, as an edit (when it changed anything).
    fn hunk_done(&mut self, changes: &mut Vec<Change>) {
        let (before, after) = (std::mem::take(&mut self.before), std::mem::take(&mut self.after));
        if std::mem::take(&mut self.changed) && changes.len() < MAX_CHANGES {
            changes.push(Change::Edit {
                path: self.path.clone(),
                before: cut(before.join("\n")),
                after: cut(after.join("\n")),
            });
        }
    }

    fn finish(mut self, changes: &mut Vec<Change>) {
        match self.kind {
            Kind::Add => {
                let mut content = self.after.join("\n");
                if !self.after.is_empty() {
                    content.push('\n');
                }
                changes.push(Change::Add {
                    path: self.path,
                    content: cut(content),
                });
            }
            Kind::Update => self.hunk_done(changes),
        }
    }
}

fn cut(mut text: String) -> String {
    if let Some((end, _)) = text.char_indices().nth(MAX_SIDE) {
        text.truncate(end);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(path: &str, before: &str, after: &str) -> Change {
        Change::Edit {
            path: path.into(),
            before: before.into(),
            after: after.into(),
        }
    }

    #[test]
    fn hunks_become_edits_with_their_context() {
        let patch = "*** Begin Patch\n*** Update File: report.py\n@@\n-print('total: ' + total)\n\
                     +print('total: ' + str(total))\n*** End Patch\n";
        assert_eq!(
            parse(patch).unwrap(),
            [edit(
                "report.py",
                "print('total: ' + total)",
                "print('total: ' + str(total))"
            )]
        );
        let two = "*** Begin Patch\n*** Update File: a.rs\n@@ fn one()\n a\n-b\n+c\n d\n@@ fn two()\n-x\n+y\n\
                   *** End of File\n*** End Patch";
        assert_eq!(
            parse(two).unwrap(),
            [edit("a.rs", "a\nb\nd", "a\nc\nd"), edit("a.rs", "x", "y")]
        );
    }

    #[test]
    fn adds_deletes_and_moves() {
        let patch = "*** Begin Patch\n*** Add File: notes/todo.txt\n+one\n+two\n*** Delete File: gone.txt\n\
                     *** Update File: old.py\n*** Move to: new.py\n@@\n-a\n+b\n*** End Patch\n";
        assert_eq!(
            parse(patch).unwrap(),
            [
                Change::Add {
                    path: "notes/todo.txt".into(),
                    content: "one\ntwo\n".into()
                },
                Change::Delete {
                    path: "gone.txt".into()
                },
                Change::Move {
                    from: "old.py".into(),
                    to: "new.py".into()
                },
                edit("new.py", "a", "b"),
            ]
        );
    }

    #[test]
    fn a_first_hunk_without_its_header_and_a_heredoc_around() {
        let patch = "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: x\n-a\n+b\n*** End Patch\nPATCH\n";
        assert_eq!(parse(patch).unwrap(), [edit("x", "a", "b")]);
        assert_eq!(parse("not a patch"), None);
        assert_eq!(parse("*** Begin Patch\n*** End Patch").unwrap(), []);
    }

    #[test]
    fn hostile_patches_are_bounded() {
        let mut patch = String::from("*** Begin Patch\n*** Update File: x\n");
        for n in 0..10_000 {
            patch.push_str(&format!("@@\n-{n}\n+{n}!\n"));
        }
        assert_eq!(parse(&patch).unwrap().len(), MAX_CHANGES);
        let long = format!("*** Begin Patch\n*** Add File: big\n+{}\n", "x".repeat(100_000));
        match &parse(&long).unwrap()[0] {
            Change::Add { content, .. } => assert_eq!(content.chars().count(), MAX_SIDE),
            other => panic!("{other:?}"),
        }
        // a context-only hunk changes nothing
        assert_eq!(
            parse("*** Begin Patch\n*** Update File: x\n@@\n a\n b\n*** End Patch").unwrap(),
            []
        );
    }
}

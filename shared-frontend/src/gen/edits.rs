//! Edits (experiment E3).
use super::Program;
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EditKind {
    Whitespace,
}
pub struct Edit {
    pub kind: EditKind,
    pub description: String,
    pub program: Program,
}
pub fn apply_edit(_p: &Program, _kind: EditKind, _seed: u64) -> Option<Edit> {
    None
}
pub fn edit_history(_p: &Program, _len: usize, _seed: u64) -> Vec<Edit> {
    vec![]
}

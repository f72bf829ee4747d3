//! Mutations.
use super::Program;
pub struct Mutation {
    pub description: String,
    pub program: Program,
}
pub fn mutate_ill_formed(_p: &Program, _seed: u64) -> Option<Mutation> {
    None
}

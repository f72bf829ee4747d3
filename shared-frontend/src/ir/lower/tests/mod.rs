//! Tests of lowering. `source` compiles Rill source with the real frontend and shows or
//! runs the IR (the corpus included); `hand` builds typed bodies by hand, for what source
//! cannot express (error nodes, unknown callees, hostile nesting) and for layouts. Bless
//! snapshots with `UPDATE_EXPECT=1`.

mod hand;
mod source;

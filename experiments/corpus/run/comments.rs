//! Inner doc comments are allowed at the start of a file,
//! and there may be several lines of them.
/*! Also in block form. */

// Plain line comments, doc comments before items, fields and statements, nested block
// comments, and comments between tokens.

/// A documented constant.
const A: i32 = 1; // trailing comment

/** A block doc comment before a function. */
fn add(a: i32, /* inline comment */ b: i32) -> i32 {
    a /* between operands */ + b
}

/* A block comment /* with a nested one /* and another */ inside */ still a comment */

//// Four slashes make a plain comment, not a doc comment.
/**/
/***/
/* ** / * */

/// A documented struct.
#[derive(Clone, Copy)]
/// More documentation after the attribute.
struct P {
    /// A documented field.
    x: i32,
    /** Another documented field. */
    y: i32,
}

mod documented {
    //! An inner doc comment at the start of an inline module body.
    /*! And a block one. */

    /// Items inside are documented too.
    pub fn f() -> i32 {
        /// A doc comment before a statement.
        let v = 40;
        v + 2
    }
}

fn main() {
    // println!("this is commented out");
    /* println!("so is this"); */
    /// Doc comment before a statement in main.
    let p = P { x: 3, /* a comment inside a literal */ y: 4 };
    /*
       A multi-line block comment
       /* containing a nested comment spanning
          several lines */
       println!("not printed");
    */
    println!("add = {}", add(p.x, p.y) + A);
    println!("documented = {}", documented::f());
    let s = 5 /* */ * /* /* nested */ */ 6;
    println!("s = {}", s);
    println!("// not a comment inside a string, /* nor this */");
    // A comment at the very end of a block.
}
// A comment at the end of the file without a trailing newline.
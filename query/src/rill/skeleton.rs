//! Item skeletons, and finding an item of a file by its ordinal.
//!
//! Building the item tree and resolving imports read an item's kind, name, visibility and
//! position, `use` trees, inline modules and type aliases (for `Alias::MAX`) — never a
//! function body, a constant's value or a struct's fields. The skeleton keeps exactly
//! what they read, so it can be persisted for every file and a changed body does not
//! change it (only its position can).

use std::sync::Arc;

use shared_frontend::sema::items::ItemAst;
use shared_frontend::syntax::ast::{
    Arena, ConstDef, ExprId, FnDef, Item, ItemKind, ModDef, SourceFileAst, StructDef, TypeId,
};

/// The skeleton of a file's syntax tree.
pub fn strip(ast: &SourceFileAst) -> SourceFileAst {
    SourceFileAst {
        items: strip_items(&ast.items),
    }
}

fn strip_items(items: &[Item]) -> Vec<Item> {
    items.iter().map(strip_item).collect()
}

fn strip_item(item: &Item) -> Item {
    let kind = match &item.kind {
        ItemKind::Fn(f) => ItemKind::Fn(Arc::new(FnDef {
            name: f.name,
            params: Vec::new(),
            ret: None,
            body: ExprId(0),
            arena: Arena::default(),
        })),
        ItemKind::Const(c) => ItemKind::Const(Arc::new(ConstDef {
            name: c.name,
            ty: TypeId(0),
            value: ExprId(0),
            arena: Arena::default(),
        })),
        ItemKind::Struct(s) => ItemKind::Struct(Arc::new(StructDef {
            name: s.name,
            fields: Vec::new(),
            arena: Arena::default(),
        })),
        ItemKind::Mod(m) => ItemKind::Mod(Arc::new(ModDef {
            name: m.name,
            items: m.items.as_deref().map(strip_items),
        })),
        ItemKind::TypeAlias(_) | ItemKind::Use(_) => item.kind.clone(),
    };
    Item {
        offset: item.offset,
        span: item.span,
        vis: item.vis,
        kind,
    }
}

/// Every item's absolute offset in pre-order (an inline module, then its items): the
/// index of an item in this list is its ordinal.
pub fn item_offsets(ast: &SourceFileAst) -> Vec<u32> {
    item_extents(ast).into_iter().map(|(o, _)| o).collect()
}

/// Every item's absolute offset and length, in pre-order (see [`item_offsets`]).
pub fn item_extents(ast: &SourceFileAst) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut stack: Vec<std::slice::Iter<'_, Item>> = vec![ast.items.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(item) => {
                out.push((item.offset, item.span.hi));
                if let ItemKind::Mod(m) = &item.kind {
                    if let Some(inner) = &m.items {
                        stack.push(inner.iter());
                    }
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    out
}

/// The syntax of the item with `ordinal` (see [`item_offsets`]).
pub fn item_by_ordinal(ast: &SourceFileAst, ordinal: u32) -> Option<ItemAst> {
    let mut n = 0u32;
    let mut stack: Vec<std::slice::Iter<'_, Item>> = vec![ast.items.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(item) => {
                if n == ordinal {
                    return Some(match &item.kind {
                        ItemKind::Fn(d) => ItemAst::Fn(d.clone()),
                        ItemKind::Const(d) => ItemAst::Const(d.clone()),
                        ItemKind::Struct(d) => ItemAst::Struct(d.clone()),
                        ItemKind::TypeAlias(d) => ItemAst::TypeAlias(d.clone()),
                        ItemKind::Mod(d) => ItemAst::Mod(d.clone()),
                        ItemKind::Use(_) => return None,
                    });
                }
                n += 1;
                if let ItemKind::Mod(m) = &item.kind {
                    if let Some(inner) = &m.items {
                        stack.push(inner.iter());
                    }
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    None
}

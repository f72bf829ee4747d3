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

/// The skeleton of a file's syntax tree, positions kept.
pub fn strip(ast: &SourceFileAst) -> SourceFileAst {
    SourceFileAst {
        items: strip_items(&ast.items, &mut None),
    }
}

/// The skeleton without positions: every item's offset is replaced by its ordinal (see
/// [`item_offsets`]), so an edit that moves items without adding or removing any leaves
/// it unchanged. (Spans inside an item are relative to it already.)
pub fn strip_positionless(ast: &SourceFileAst) -> SourceFileAst {
    SourceFileAst {
        items: strip_items(&ast.items, &mut Some(0)),
    }
}

/// `ordinal`: `Some(next)` to number the items instead of keeping their offsets. The
/// recursion follows inline-module nesting, which the parser bounds.
fn strip_items(items: &[Item], ordinal: &mut Option<u32>) -> Vec<Item> {
    items.iter().map(|i| strip_item(i, ordinal)).collect()
}

fn strip_item(item: &Item, ordinal: &mut Option<u32>) -> Item {
    // Positionless: the ordinal for the offset, and no extent (only diagnostics read it).
    let (offset, span) = match ordinal {
        Some(n) => {
            *n += 1;
            (*n - 1, shared_frontend::span::Span::default())
        }
        None => (item.offset, item.span),
    };
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
            items: m.items.as_deref().map(|items| strip_items(items, ordinal)),
        })),
        ItemKind::TypeAlias(_) | ItemKind::Use(_) => item.kind.clone(),
    };
    Item {
        offset,
        span,
        vis: item.vis,
        kind,
    }
}

/// Every item of a file in pre-order (an inline module, then its items): the index of an
/// item in this order is its *ordinal*.
fn preorder(ast: &SourceFileAst) -> impl Iterator<Item = &Item> {
    let mut stack: Vec<std::slice::Iter<'_, Item>> = vec![ast.items.iter()];
    std::iter::from_fn(move || loop {
        let item = match stack.last_mut()?.next() {
            Some(item) => item,
            None => {
                stack.pop();
                continue;
            }
        };
        if let ItemKind::Mod(m) = &item.kind {
            if let Some(inner) = &m.items {
                stack.push(inner.iter());
            }
        }
        return Some(item);
    })
}

/// Every item's absolute offset and length, by ordinal (see [`preorder`]).
pub fn item_extents(ast: &SourceFileAst) -> Vec<(u32, u32)> {
    preorder(ast).map(|i| (i.offset, i.span.hi)).collect()
}

/// The syntax of the item with `ordinal` (see [`preorder`]).
pub fn item_by_ordinal(ast: &SourceFileAst, ordinal: u32) -> Option<ItemAst> {
    let item = preorder(ast).nth(ordinal as usize)?;
    Some(match &item.kind {
        ItemKind::Fn(d) => ItemAst::Fn(d.clone()),
        ItemKind::Const(d) => ItemAst::Const(d.clone()),
        ItemKind::Struct(d) => ItemAst::Struct(d.clone()),
        ItemKind::TypeAlias(d) => ItemAst::TypeAlias(d.clone()),
        ItemKind::Mod(d) => ItemAst::Mod(d.clone()),
        ItemKind::Use(_) => return None,
    })
}

/// The part of a (positionless) skeleton that decides the module tree: the `mod` items,
/// and the other items of the type namespace that share a name with a `mod` of the same
/// module (they decide its def-path's disambiguator). Item offsets are renumbered in
/// pre-order over what is kept, so adding, removing or moving any other item leaves it
/// unchanged.
pub fn strip_to_modules(ast: &SourceFileAst) -> SourceFileAst {
    SourceFileAst {
        items: modules_of(&ast.items, &mut 0),
    }
}

/// The recursion follows inline-module nesting, which the parser bounds.
fn modules_of(items: &[Item], next: &mut u32) -> Vec<Item> {
    let mod_names: Vec<_> = items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Mod(m) => Some(m.name.name),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for item in items {
        let kind = match &item.kind {
            ItemKind::Mod(m) => {
                let offset = *next;
                *next += 1;
                let items = m.items.as_deref().map(|inner| modules_of(inner, next));
                out.push(Item {
                    offset,
                    span: shared_frontend::span::Span::default(),
                    vis: item.vis,
                    kind: ItemKind::Mod(Arc::new(ModDef {
                        name: m.name,
                        items,
                    })),
                });
                continue;
            }
            ItemKind::Struct(s) if mod_names.contains(&s.name.name) => item.kind.clone(),
            ItemKind::TypeAlias(a) if mod_names.contains(&a.name.name) => item.kind.clone(),
            _ => continue,
        };
        out.push(Item {
            offset: *next,
            span: shared_frontend::span::Span::default(),
            vis: item.vis,
            kind,
        });
        *next += 1;
    }
    out
}

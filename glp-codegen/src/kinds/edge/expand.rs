//! The `#[glp::edge_program]` attribute's expansion (glp-macros only forwards to it): the impl
//! as written, with `identity` (the combine's identity for the program's message type) added
//! unless the impl writes it, then an impl of `::glp::edge::CompiledEdgeProgram` carrying the
//! generated CUDA, the program's source tokens (so the interpreter can run it too), its
//! parameter values and where its loops are. The parts every kind shares are
//! [`crate::program::expand`]'s.

use super::EdgeIr;
use crate::program::expand::{common_methods, compile_attribute, inlined_item};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[edge_program(<attr>)] <item>`.
pub fn expand_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expansion = match compile_attribute(&super::EDGE_KIND, "glp::edge_program", attr, &item) {
        Ok(expansion) => expansion,
        Err(tokens) => return tokens,
    };
    let program = EdgeIr::new(expansion.compiled.program.clone());
    let cuda = program.device_functions();
    if expansion.debug {
        eprintln!("glp: CUDA generated for `{}`:\n{cuda}", program.program.name);
    }
    let self_ty = &expansion.item.self_ty;
    let features = program.features.iter();
    let common = common_methods(&expansion, &program.program, &cuda, &item);
    let generated = quote! {
        impl ::glp::edge::CompiledEdgeProgram for #self_ty {
            #common
            fn features(&self) -> &[&'static str] {
                &[#(#features),*]
            }
        }
    };
    let mut impl_item = expansion.item.clone();
    if !impl_item.items.iter().any(|i| matches!(i, syn::ImplItem::Fn(f) if f.sig.ident == "identity")) {
        impl_item.items.push(syn::parse_quote! {
            fn identity(&self) -> Self::Message {
                ::glp::edge::identity(self.combine())
            }
        });
    }
    let item = inlined_item(&super::EDGE_KIND, &impl_item);
    quote!(#item #generated)
}

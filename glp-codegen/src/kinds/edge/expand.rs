//! The `#[glp::edge_program]` attribute's expansion (glp-macros only forwards to it): the impl
//! as written, with `identity` (the combine's identity for the program's message type, a host
//! method the compiler leaves out) added (an impl that writes its own is refused), then an impl of `::glp::edge::CompiledEdgeProgram` carrying the
//! generated CUDA, the program's source tokens (so the interpreter can run it too), its
//! parameter values and where its loops are. The parts every kind shares are
//! [`crate::program::expand`]'s.

use super::EdgeIr;
use crate::program::expand::{common_methods, compile_attribute, inlined_item};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[edge_program(<attr>)] <item>`.
pub fn expand_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Some(error) = written_identity(&item) {
        return quote!(#error #item);
    }
    // `identity` first, so that an impl the compiler refuses is not also missing it.
    let item = with_identity(item);
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
    let item = inlined_item(&super::EDGE_KIND, &expansion.item);
    quote!(#item #generated)
}

/// The error for an impl that writes `identity`: every engine combines from the combine's own
/// identity (the GPU's kernels and the interpreter know no other), so the attribute writes it.
fn written_identity(item: &TokenStream) -> Option<TokenStream> {
    let parsed = syn::parse2::<syn::ItemImpl>(item.clone()).ok()?;
    parsed.items.iter().find_map(|i| match i {
        syn::ImplItem::Fn(f) if f.sig.ident == "identity" => Some(
            syn::Error::new_spanned(
                &f.sig.ident,
                "`identity` is the combine's own (the largest value for MIN, the smallest for MAX, 0 for SUM), \
                 which #[glp::edge_program] writes: remove it",
            )
            .to_compile_error(),
        ),
        _ => None,
    })
}

/// `item` with `identity` (the combine's identity for the message type) added to the impl;
/// unchanged when it is not an impl.
fn with_identity(item: TokenStream) -> TokenStream {
    let Ok(mut parsed) = syn::parse2::<syn::ItemImpl>(item.clone()) else { return item };
    parsed.items.push(syn::parse_quote! {
        fn identity(&self) -> Self::Message {
            ::glp::edge::identity(self.combine())
        }
    });
    quote!(#parsed)
}

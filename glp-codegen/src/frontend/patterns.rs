//! Lowering of `match`: integer patterns (literals, negative literals, ranges, constants,
//! `_`, alternatives) and the arms.

use super::*;

impl Lowerer<'_> {
    pub(super) fn lower_match(&mut self, m: &syn::ExprMatch) -> Expr {
        let span = m.span();
        let scrutinee = self.lower_expr(&m.expr);
        let mut arms = Vec::new();
        for arm in &m.arms {
            let mut ty = None;
            let patterns = self.match_patterns(&arm.pat, &mut ty);
            let ty = match ty {
                Some(s) => Type::Scalar(s),
                None => self.fresh(VarKind::Int),
            };
            let pattern_span = self.span(arm.pat.span());
            let body = self.lower_expr(&arm.body);
            arms.push(MatchArm { patterns, ty, span: pattern_span, body });
        }
        self.expr(ExprKind::Match { scrutinee: Box::new(scrutinee), arms }, Type::Unit, span)
    }

    /// The alternatives of an arm's pattern; `ty` receives the type a suffix or a typed
    /// constant gives them.
    pub(super) fn match_patterns(&mut self, pat: &syn::Pat, ty: &mut Option<Scalar>) -> Vec<MatchPattern> {
        // Stands for a pattern that failed to lower (its error is reported).
        let failed = vec![MatchPattern::Value(i128::MIN)];
        match pat {
            syn::Pat::Wild(_) => Vec::new(),
            syn::Pat::Or(or) => {
                let mut out = Vec::new();
                for case in &or.cases {
                    let sub = self.match_patterns(case, ty);
                    if sub.is_empty() {
                        self.error(case.span(), "`_` must be an arm of its own", None);
                    }
                    out.extend(sub);
                }
                out
            }
            syn::Pat::Paren(p) => self.match_patterns(&p.pat, ty),
            syn::Pat::Lit(l) => match self.pattern_value(&syn::Expr::Lit(l.clone()), ty) {
                Some(v) => vec![MatchPattern::Value(v)],
                None => failed,
            },
            syn::Pat::Path(p) => match self.pattern_value(&syn::Expr::Path(p.clone()), ty) {
                Some(v) => vec![MatchPattern::Value(v)],
                None => failed,
            },
            syn::Pat::Range(r) => {
                // An open end is the type's bound (`i128::MIN`/`MAX` stand for it).
                let lo = match &r.start {
                    Some(e) => self.pattern_value(e, ty),
                    None => Some(i128::MIN),
                };
                let half_open = matches!(r.limits, syn::RangeLimits::HalfOpen(_));
                let hi = match &r.end {
                    Some(e) => self.pattern_value(e, ty).map(|hi| if half_open { hi - 1 } else { hi }),
                    None => Some(i128::MAX),
                };
                let (Some(lo), Some(hi)) = (lo, hi) else { return failed };
                if lo > hi {
                    let message = if half_open {
                        "lower range bound must be less than upper"
                    } else {
                        "lower range bound must be less than or equal to upper"
                    };
                    self.error(r.span(), message, Some("this range matches no value"));
                    return failed;
                }
                vec![MatchPattern::Range(lo, hi)]
            }
            syn::Pat::Guard(g) => {
                self.error(g.span(), "match guards are not supported", Some("use if/else inside the arm"));
                failed
            }
            syn::Pat::Ident(i) => {
                self.error(
                    i.span(),
                    "bindings in patterns are not supported",
                    Some("match on integer literals, ranges and `_`; the scrutinee is still in scope"),
                );
                failed
            }
            other => {
                self.error(
                    other.span(),
                    "unsupported pattern",
                    Some("match arms take integer literals, `a..=b` ranges, `|` alternatives and `_`"),
                );
                failed
            }
        }
    }

    /// The value of a pattern's literal (negative ones included) or constant.
    pub(super) fn pattern_value(&mut self, e: &syn::Expr, ty: &mut Option<Scalar>) -> Option<i128> {
        match e {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => {
                // syn keeps the sign of `-1` in the literal's digits.
                let Ok(value) = i.base10_digits().parse::<i128>() else {
                    self.error(i.span(), "integer literal out of range", None);
                    return None;
                };
                match i.suffix() {
                    "" => {}
                    suffix => match Scalar::from_rust_name(suffix).filter(|s| s.is_integer()) {
                        Some(s) => self.pattern_type(ty, s, e.span()),
                        None => {
                            self.error(i.span(), format!("`{suffix}` is not an integer type"), None);
                            return None;
                        }
                    },
                }
                Some(value)
            }
            syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => {
                self.pattern_value(expr, ty).map(|v| -v)
            }
            syn::Expr::Paren(p) => self.pattern_value(&p.expr, ty),
            syn::Expr::Path(p) if p.qself.is_none() => {
                let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                if let Some(c) = segments.last().and_then(|name| self.kind.constant(name)) {
                    let (s, value) = (c.ty, c.value);
                    self.pattern_type(ty, s, e.span());
                    return Some(i128::from(value));
                }
                if let [type_name, name] = segments.as_slice() {
                    let scalar = Scalar::from_rust_name(type_name).or_else(|| self.kind.alias(type_name));
                    if let Some((s, value)) = scalar.and_then(|s| Some((s, int_constant(s, name)?))) {
                        self.pattern_type(ty, s, e.span());
                        return Some(value);
                    }
                }
                let constants: Vec<&str> = self.kind.constants.iter().map(|c| c.name).collect();
                let mut help = "patterns take integer literals and the integer types' MIN and MAX".to_string();
                if !constants.is_empty() {
                    help = format!("{help}, and the constants {}", constants.join(", "));
                }
                self.error(e.span(), format!("unknown constant `{}` in a pattern", segments.join("::")), Some(&help));
                None
            }
            other => {
                self.error(other.span(), "patterns must be integer literals", None);
                None
            }
        }
    }

    /// Records that an arm's patterns have type `s` (from a suffix or a constant).
    pub(super) fn pattern_type(&mut self, ty: &mut Option<Scalar>, s: Scalar, span: Span) {
        match *ty {
            Some(t) if t != s => {
                self.error(span, format!("mismatched types in the patterns of this arm: `{t}` and `{s}`"), None);
            }
            _ => *ty = Some(s),
        }
    }
}

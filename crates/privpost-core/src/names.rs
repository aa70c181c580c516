//! The names of closed sets — mechanisms, methods, models, kernels, modes —
//! written once. [`name_table!`] gives an enum its table of variant ↔ name:
//! `as_str`, `ALL` (every variant, in the table's order) and `parse`, so no
//! `match` of names is written by hand. Where the enum is also (de)serialised
//! its serde names are the same strings: `tests/names.rs` checks every such
//! enum both ways, and that no hand-written `as_str` match is left.

/// Gives `$t` its name table: `as_str`, `ALL` and `parse` (see the module header).
///
/// ```
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// enum Law { Laplace, Gaussian }
/// privpost_core::names::name_table!(Law { Laplace => "laplace", Gaussian => "gaussian" });
/// assert_eq!(Law::Gaussian.as_str(), "gaussian");
/// assert_eq!(Law::parse("laplace"), Some(Law::Laplace));
/// assert_eq!(Law::ALL, &[Law::Laplace, Law::Gaussian]);
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __name_table {
    ($t:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $t {
            /// Every variant, in the order of its name table.
            #[allow(dead_code)]
            pub const ALL: &'static [$t] = &[$($t::$variant),+];

            /// The variant's name (its config, CSV and serde name).
            #[allow(dead_code)]
            pub fn as_str(self) -> &'static str {
                match self {
                    $($t::$variant => $text),+
                }
            }

            /// The variant of a name.
            #[allow(dead_code)]
            pub fn parse(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == name)
            }
        }
    };
}

/// The macro by its module's path (`names::name_table!`), so that a file that
/// uses it imports `names`, a leaf.
pub use crate::__name_table as name_table;

//! The enumerated YCSB properties (`requestdistribution`, `scanlengthdistribution`,
//! `insertorder`): one enum each, named by the property's values, and the case-insensitive
//! lookup of a value among named choices.

/// An enum whose variants are named by property values, with `name` and `parse`.
macro_rules! named_choices {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($variant,)+
        }

        impl $name {
            /// The property value that names this choice.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// Parse a name (case-insensitive); the error lists the valid names.
            pub fn parse(text: &str) -> Result<Self, String> {
                choose(&[$(($text, $name::$variant),)+], text)
            }
        }
    };
}

named_choices! {
    /// How the run phase picks the key of each operation (YCSB `requestdistribution`).
    Distribution {
        Uniform = "uniform",
        Zipfian = "zipfian",
        Latest = "latest",
        LatestConsistent = "latest-consistent",
        Hotspot = "hotspot",
        Sequential = "sequential",
    }
}

named_choices! {
    /// How scan lengths are drawn (YCSB `scanlengthdistribution`).
    ScanLengthDistribution {
        Uniform = "uniform",
        Zipfian = "zipfian",
    }
}

named_choices! {
    /// Whether key text is the hashed or the plain key number (YCSB `insertorder`).
    InsertOrder {
        Hashed = "hashed",
        Ordered = "ordered",
    }
}

/// The value named `text` (trimmed, case-insensitive) among `choices`; the error lists the
/// names in order.
pub(super) fn choose<T: Copy>(choices: &[(&'static str, T)], text: &str) -> Result<T, String> {
    let text = text.trim();
    choices
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(text))
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            format!("expected one of {}, got \"{text}\"", names.join(", "))
        })
}

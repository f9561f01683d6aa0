//! What a policy carries from preconditioning into the timed run, saved in a device snapshot
//! (`sim/snapshot.rs`): a random victim policy's generator, an allocator's cursor, the content
//! versions a compressing FTL has written. Every policy says what it keeps, and one that keeps
//! nothing says so ([`keeps_nothing!`]), so that a new policy cannot leave its state out of
//! snapshots by default.

use serde::{Deserialize, Serialize};

pub trait SavedState {
    /// The policy's state, encoded (empty for a policy that keeps none).
    fn save_state(&self) -> Result<Vec<u8>, postcard::Error>;
    /// Take the state [`SavedState::save_state`] gave, of a policy built from the same config.
    fn load_state(&mut self, state: &[u8]) -> Result<(), postcard::Error>;
}

/// `state` encoded for [`SavedState::save_state`].
pub fn save<T: Serialize>(state: &T) -> Result<Vec<u8>, postcard::Error> {
    postcard::to_allocvec(state)
}

/// The value [`save`] encoded, all of `state`.
pub fn load<'a, T: Deserialize<'a>>(state: &'a [u8]) -> Result<T, postcard::Error> {
    postcard::from_bytes(state)
}

/// [`SavedState`] for policies whose decisions depend on nothing but their config and their
/// arguments.
macro_rules! keeps_nothing {
    ($($policy:ty),+ $(,)?) => {$(
        impl $crate::ftl::saved_state::SavedState for $policy {
            fn save_state(&self) -> Result<Vec<u8>, postcard::Error> {
                Ok(Vec::new())
            }
            fn load_state(&mut self, state: &[u8]) -> Result<(), postcard::Error> {
                match state.is_empty() {
                    true => Ok(()),
                    false => Err(postcard::Error::DeserializeBadEncoding),
                }
            }
        }
    )+};
}
pub(crate) use keeps_nothing;

/// [`SavedState`] for policies whose state is one field (a generator, a cursor). With a third
/// argument, `fits(&policy, &loaded)`, a loaded value the policy (built from the same config)
/// cannot use — a cursor out of range, a table of another size — is refused as a bad encoding
/// rather than taken (a damaged snapshot must not make the run index out of range).
macro_rules! keeps_field {
    ($policy:ty, $field:ident) => {
        $crate::ftl::saved_state::keeps_field!($policy, $field, |_, _| true);
    };
    ($policy:ty, $field:ident, $fits:expr) => {
        impl $crate::ftl::saved_state::SavedState for $policy {
            fn save_state(&self) -> Result<Vec<u8>, postcard::Error> {
                $crate::ftl::saved_state::save(&self.$field)
            }
            fn load_state(&mut self, state: &[u8]) -> Result<(), postcard::Error> {
                let loaded = $crate::ftl::saved_state::load(state)?;
                let fits: fn(&Self, &_) -> bool = $fits;
                if !fits(self, &loaded) {
                    return Err(postcard::Error::DeserializeBadEncoding);
                }
                self.$field = loaded;
                Ok(())
            }
        }
    };
}
pub(crate) use keeps_field;

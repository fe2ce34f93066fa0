//! `pocketbench compare A B`.
use crate::cli::CompareArgs;
use crate::error::Result;
pub fn main(_args: &CompareArgs) -> Result<i32> {
    Ok(0)
}

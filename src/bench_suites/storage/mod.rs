//! Storage suite (in progress).

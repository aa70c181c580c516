//! placeholder during bring-up

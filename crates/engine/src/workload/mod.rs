//! YCSB's core workload: properties, key naming, field values, the operation
//! and key choosers, and the per-thread workload that issues operations.

pub mod core;
pub mod effective;
pub mod fields;
pub mod key_chooser;
pub mod keys;
pub mod operation_chooser;
pub mod properties;
pub mod property_names;

pub use self::core::{CoreWorkload, Phase, ThreadWorkload};
pub use properties::CoreConfig;

//! Inputs: opening and mapping files. (Archives, host objects and fatbins come with the
//! build-system issue.)

pub mod files;

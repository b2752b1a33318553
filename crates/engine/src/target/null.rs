//! The `null` target: every operation succeeds at once. It measures the client.

use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::TargetError;
use crate::properties::Properties;

/// Registry entry for `null`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: "null",
        summary: "does nothing; measures the client itself",
        properties: &[],
        open: |_props: &Properties| Ok(Box::new(NullDriver)),
    }
}

struct NullDriver;

impl TargetDriver for NullDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(NullSession))
    }
}

struct NullSession;

impl Session for NullSession {
    fn read(&mut self, _: &str, _: &str, _: Option<&[String]>, out: &mut Record) -> Status {
        out.fields.clear();
        Status::Ok
    }
    fn scan(
        &mut self,
        _: &str,
        _: &str,
        _: usize,
        _: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        out.clear();
        Status::Ok
    }
    fn update(&mut self, _: &str, _: &str, _: &Record) -> Status {
        Status::Ok
    }
    fn insert(&mut self, _: &str, _: &str, _: &Record) -> Status {
        Status::Ok
    }
    fn delete(&mut self, _: &str, _: &str) -> Status {
        Status::Ok
    }
}

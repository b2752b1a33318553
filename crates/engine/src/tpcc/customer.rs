//! Choosing a customer as Payment and Order-Status do (clause 2.5.1.2): 60 %
//! by last name (the middle one of those sorted by first name), 40 % by id.

use rand::Rng as _;

use super::config::Scale;
use super::db::{Db, DbError, Value};
use super::random::{last_name, nurand, Constants};
use crate::generator::Rng;

/// How the terminal names the customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CustomerRef {
    Id(i64),
    LastName(String),
}

/// 60 % a last name drawn with `NURand(255, 0, 999)`, else an id drawn with
/// `NURand(1023, 1, 3000)` (bounds scaled with a test scale's customers).
pub fn choose(rng: &mut Rng, scale: &Scale, k: &Constants) -> CustomerRef {
    if rng.random_range(1..=100) <= 60 {
        CustomerRef::LastName(last_name(nurand(
            rng,
            255,
            0,
            scale.last_names() - 1,
            k.c_last,
        )))
    } else {
        CustomerRef::Id(nurand(rng, 1023, 1, scale.customers, k.c_id))
    }
}

const BY_LAST_NAME: &str =
    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first";

/// The customer's id (for a last name: the middle one, rounded up, by first name).
pub fn resolve(db: &mut dyn Db, w: i64, d: i64, who: &CustomerRef) -> Result<i64, DbError> {
    match who {
        CustomerRef::Id(id) => Ok(*id),
        CustomerRef::LastName(name) => {
            let rows = db.query(
                BY_LAST_NAME,
                &[Value::Int(w), Value::Int(d), Value::Text(name.clone())],
            )?;
            if rows.is_empty() {
                return Err(DbError::fatal(format!(
                    "no customer named {name} in warehouse {w}, district {d}"
                )));
            }
            rows[(rows.len() - 1) / 2][0].int()
        }
    }
}

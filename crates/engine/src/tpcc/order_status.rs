//! Order-Status (clause 2.6): a customer's balance and newest order with its
//! lines. Read-only.

use super::config::{Scale, DISTRICTS};
use super::customer::{self, CustomerRef};
use super::db::{one_row, Db, DbError, Value};
use super::random::{uniform, Constants};
use super::Outcome;
use crate::generator::Rng;

/// The terminal's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub w: i64,
    pub d: i64,
    pub customer: CustomerRef,
}

/// Draws the input for home warehouse `w`.
pub fn input(rng: &mut Rng, w: i64, scale: &Scale, k: &Constants) -> Input {
    Input {
        w,
        d: uniform(rng, 1, DISTRICTS),
        customer: customer::choose(rng, scale, k),
    }
}

const CUSTOMER: &str = "SELECT c_balance, c_first, c_middle, c_last FROM customer \
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
const NEWEST_ORDER: &str = "SELECT o_id, o_carrier_id, o_entry_d FROM orders \
    WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1";
const LINES: &str = "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d \
    FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?";

/// Runs the transaction (the caller begins and commits it).
pub fn execute(db: &mut dyn Db, input: &Input) -> Result<Outcome, DbError> {
    let c_id = customer::resolve(db, input.w, input.d, &input.customer)?;
    let key = [Value::Int(input.w), Value::Int(input.d), Value::Int(c_id)];
    one_row(db.query(CUSTOMER, &key)?, "customer")?;
    if let Some(order) = db.query(NEWEST_ORDER, &key)?.into_iter().next() {
        db.query(
            LINES,
            &[Value::Int(input.w), Value::Int(input.d), order[0].clone()],
        )?;
    }
    Ok(Outcome::Committed)
}

//! Delivery (clause 2.7): for each of the warehouse's ten districts, the
//! oldest undelivered order is delivered: its `new_order` row deleted, its
//! carrier set, its lines dated, its amount added to the customer's balance.
//! All ten districts in one database transaction (the spec allows one to ten).

use super::config::DISTRICTS;
use super::db::{one_row, Db, DbError, Value};
use super::random::uniform;
use super::Outcome;
use crate::generator::Rng;

/// The terminal's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Input {
    pub w: i64,
    pub carrier: i64,
}

/// Draws the input for home warehouse `w`.
pub fn input(rng: &mut Rng, w: i64) -> Input {
    Input {
        w,
        carrier: uniform(rng, 1, 10),
    }
}

const OLDEST: &str = "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? \
    ORDER BY no_o_id LIMIT 1 FOR UPDATE";
const DELETE: &str = "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?";
const CUSTOMER_OF: &str = "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?";
const CARRIER: &str =
    "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?";
const DATE_LINES: &str = "UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP \
    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?";
const TOTAL: &str =
    "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?";
const CREDIT: &str = "UPDATE customer SET c_balance = c_balance + ?, \
    c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";

/// Runs the transaction (the caller begins and commits it).
pub fn execute(db: &mut dyn Db, input: &Input) -> Result<Outcome, DbError> {
    let w = Value::Int(input.w);
    for d in 1..=DISTRICTS {
        let d = Value::Int(d);
        let Some(oldest) = db
            .query(OLDEST, &[w.clone(), d.clone()])?
            .into_iter()
            .next()
        else {
            continue; // nothing to deliver in this district: skipped, as the spec allows
        };
        let order = [w.clone(), d.clone(), oldest[0].clone()];
        if db.exec(DELETE, &order)? == 0 {
            continue;
        }
        let c = one_row(db.query(CUSTOMER_OF, &order)?, "order")?;
        let mut params = vec![Value::Int(input.carrier)];
        params.extend(order.iter().cloned());
        db.exec(CARRIER, &params)?;
        db.exec(DATE_LINES, &order)?;
        let total = one_row(db.query(TOTAL, &order)?, "order lines")?[0].dec()?;
        db.exec(
            CREDIT,
            &[Value::Dec(total), w.clone(), d.clone(), c[0].clone()],
        )?;
    }
    Ok(Outcome::Committed)
}

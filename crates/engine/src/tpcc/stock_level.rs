//! Stock-Level (clause 2.8): how many distinct items of the district's last
//! 20 orders have stock below a threshold of 10 to 20. Read-only; the district
//! is the terminal's own.

use super::db::{one_row, Db, DbError, Value};
use super::random::uniform;
use super::Outcome;
use crate::generator::Rng;

/// The terminal's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Input {
    pub w: i64,
    pub d: i64,
    pub threshold: i64,
}

/// Draws the input for the terminal of warehouse `w` and district `d`.
pub fn input(rng: &mut Rng, w: i64, d: i64) -> Input {
    Input {
        w,
        d,
        threshold: uniform(rng, 10, 20),
    }
}

const NEXT_ORDER: &str = "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?";
const LOW_STOCK: &str = "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock \
    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? \
    AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?";

/// Runs the transaction (the caller begins and commits it).
pub fn execute(db: &mut dyn Db, input: &Input) -> Result<Outcome, DbError> {
    let (w, d) = (Value::Int(input.w), Value::Int(input.d));
    let next = one_row(db.query(NEXT_ORDER, &[w.clone(), d.clone()])?, "district")?[0].int()?;
    one_row(
        db.query(
            LOW_STOCK,
            &[
                w.clone(),
                d,
                Value::Int(next),
                Value::Int(next - 20),
                w,
                Value::Int(input.threshold),
            ],
        )?,
        "stock level",
    )?;
    Ok(Outcome::Committed)
}

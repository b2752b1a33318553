//! `tpcc check`: the spec's consistency conditions 1 and 2 (clause 3.3.2),
//! which every correct run keeps:
//! 1. each warehouse's `W_YTD` is the sum of its districts' `D_YTD`;
//! 2. in each district, `D_NEXT_O_ID - 1` equals the largest `O_ID` in
//!    `orders` and the largest `NO_O_ID` in `new_order` (when it has rows).

use std::collections::BTreeMap;

use super::db::{Db, DbError};

/// One condition's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub number: u8,
    pub text: &'static str,
    /// Warehouses (1) or districts (2) checked.
    pub checked: usize,
    /// What did not hold, one line each.
    pub violations: Vec<String>,
}

type Key = (i64, i64);

fn by_district(db: &mut dyn Db, sql: &str) -> Result<BTreeMap<Key, i64>, DbError> {
    db.query(sql, &[])?
        .into_iter()
        .map(|r| Ok(((r[0].int()?, r[1].int()?), r[2].int()?)))
        .collect()
}

/// Checks conditions 1 and 2.
pub fn check(db: &mut dyn Db) -> Result<Vec<Condition>, DbError> {
    let mut one = Condition {
        number: 1,
        text: "W_YTD = sum(D_YTD)",
        checked: 0,
        violations: Vec::new(),
    };
    let sums: BTreeMap<i64, i64> = db
        .query(
            "SELECT d_w_id, SUM(d_ytd) FROM district GROUP BY d_w_id",
            &[],
        )?
        .into_iter()
        .map(|r| Ok((r[0].int()?, r[1].dec()?)))
        .collect::<Result<_, DbError>>()?;
    for row in db.query("SELECT w_id, w_ytd FROM warehouse ORDER BY w_id", &[])? {
        let (w, ytd) = (row[0].int()?, row[1].dec()?);
        one.checked += 1;
        let sum = sums.get(&w).copied().unwrap_or(0);
        if sum != ytd {
            one.violations.push(format!(
                "warehouse {w}: W_YTD {} but the districts' D_YTD sum to {}",
                super::db::format_decimal(ytd),
                super::db::format_decimal(sum)
            ));
        }
    }
    let mut two = Condition {
        number: 2,
        text: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        checked: 0,
        violations: Vec::new(),
    };
    let next = by_district(db, "SELECT d_w_id, d_id, d_next_o_id FROM district")?;
    let orders = by_district(
        db,
        "SELECT o_w_id, o_d_id, MAX(o_id) FROM orders GROUP BY o_w_id, o_d_id",
    )?;
    let new_orders = by_district(
        db,
        "SELECT no_w_id, no_d_id, MAX(no_o_id) FROM new_order GROUP BY no_w_id, no_d_id",
    )?;
    for (key, next) in &next {
        two.checked += 1;
        let last = next - 1;
        let (w, d) = key;
        match orders.get(key) {
            Some(&o) if o == last => {}
            o => two.violations.push(format!(
                "warehouse {w} district {d}: D_NEXT_O_ID - 1 = {last}, max(O_ID) = {o:?}"
            )),
        }
        if let Some(&no) = new_orders.get(key) {
            if no != last {
                two.violations.push(format!(
                    "warehouse {w} district {d}: D_NEXT_O_ID - 1 = {last}, max(NO_O_ID) = {no}"
                ));
            }
        }
    }
    Ok(vec![one, two])
}

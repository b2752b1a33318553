//! New-Order (clause 2.4): a new order of 5 to 15 lines for a customer of the
//! home warehouse, 1 % of the lines supplied by another warehouse, 1 % of the
//! orders rolled back on an unused item number. The items and the stock rows are
//! read in one statement each (by IN list, stock locked in key order), the
//! order lines inserted in one.

use std::collections::HashMap;

use super::config::{Scale, DISTRICTS};
use super::db::{one_row, Db, DbError, Value};
use super::random::{nurand, uniform, Constants};
use super::Outcome;
use crate::generator::Rng;

/// One order line's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub item: i64,
    pub supply_w: i64,
    pub quantity: i64,
}

/// The terminal's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub w: i64,
    pub d: i64,
    pub c: i64,
    /// Sorted by supplying warehouse and item, so stock rows are locked in one order.
    pub lines: Vec<Line>,
}

/// Draws the input for home warehouse `w`.
pub fn input(rng: &mut Rng, w: i64, scale: &Scale, k: &Constants) -> Input {
    let count = uniform(rng, 5, 15);
    let rollback = uniform(rng, 1, 100) == 1;
    let mut lines: Vec<Line> = (0..count)
        .map(|i| {
            let item = if rollback && i == count - 1 {
                scale.items + 1 // unused: the order is rolled back
            } else {
                nurand(rng, 8191, 1, scale.items, k.ol_i_id)
            };
            let supply_w = if scale.warehouses > 1 && uniform(rng, 1, 100) == 1 {
                other_warehouse(rng, w, scale.warehouses)
            } else {
                w
            };
            Line {
                item,
                supply_w,
                quantity: uniform(rng, 1, 10),
            }
        })
        .collect();
    lines.sort_by_key(|l| (l.supply_w, l.item));
    Input {
        w,
        d: uniform(rng, 1, DISTRICTS),
        c: nurand(rng, 1023, 1, scale.customers, k.c_id),
        lines,
    }
}

/// A warehouse other than `w` (there must be more than one).
pub fn other_warehouse(rng: &mut Rng, w: i64, warehouses: i64) -> i64 {
    let other = uniform(rng, 1, warehouses - 1);
    if other >= w {
        other + 1
    } else {
        other
    }
}

fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

const CUSTOMER_WAREHOUSE: &str = "SELECT c_discount, c_last, c_credit, w_tax \
    FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?";
const DISTRICT: &str =
    "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE";
const NEXT_ORDER: &str =
    "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?";
const ORDER: &str = "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, \
    o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)";
const NEW_ORDER: &str = "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)";
const STOCK_UPDATE: &str = "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, \
    s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? \
    WHERE s_w_id = ? AND s_i_id = ?";

/// Runs the transaction (the caller began it and commits or rolls back on error).
pub fn execute(db: &mut dyn Db, input: &Input) -> Result<Outcome, DbError> {
    let (w, d) = (Value::Int(input.w), Value::Int(input.d));
    one_row(
        db.query(
            CUSTOMER_WAREHOUSE,
            &[w.clone(), d.clone(), Value::Int(input.c)],
        )?,
        "customer",
    )?;
    let district = one_row(db.query(DISTRICT, &[w.clone(), d.clone()])?, "district")?;
    let o_id = district[0].int()?;
    db.exec(NEXT_ORDER, &[w.clone(), d.clone()])?;
    let all_local = input.lines.iter().all(|l| l.supply_w == input.w);
    db.exec(
        ORDER,
        &[
            Value::Int(o_id),
            d.clone(),
            w.clone(),
            Value::Int(input.c),
            Value::Int(input.lines.len() as i64),
            Value::Int(i64::from(all_local)),
        ],
    )?;
    db.exec(NEW_ORDER, &[Value::Int(o_id), d.clone(), w.clone()])?;

    let mut items: Vec<i64> = input.lines.iter().map(|l| l.item).collect();
    items.sort_unstable();
    items.dedup();
    let sql = format!(
        "SELECT i_id, i_price FROM item WHERE i_id IN ({})",
        marks(items.len())
    );
    let params: Vec<Value> = items.iter().map(|&i| Value::Int(i)).collect();
    let mut prices = HashMap::with_capacity(items.len());
    for row in db.query(&sql, &params)? {
        prices.insert(row[0].int()?, row[1].dec()?);
    }
    if prices.len() < items.len() {
        // The 1 % of orders with an unused item: rolled back, as the spec asks.
        db.rollback()?;
        return Ok(Outcome::RolledBack);
    }

    // Stock rows, per supplying warehouse, locked in key order.
    let mut stock: HashMap<(i64, i64), (i64, String)> = HashMap::with_capacity(items.len());
    let mut suppliers: Vec<i64> = input.lines.iter().map(|l| l.supply_w).collect();
    suppliers.dedup(); // lines are sorted by warehouse
    for sw in suppliers {
        let mut ids: Vec<i64> = input
            .lines
            .iter()
            .filter(|l| l.supply_w == sw)
            .map(|l| l.item)
            .collect();
        ids.dedup();
        let sql = format!(
            "SELECT s_i_id, s_quantity, s_dist_{:02} FROM stock WHERE s_w_id = ? AND s_i_id IN ({}) \
             FOR UPDATE",
            input.d,
            marks(ids.len())
        );
        let mut params = vec![Value::Int(sw)];
        params.extend(ids.iter().map(|&i| Value::Int(i)));
        for row in db.query(&sql, &params)? {
            stock.insert(
                (sw, row[0].int()?),
                (row[1].int()?, row[2].text().to_string()),
            );
        }
    }

    let mut line_values = Vec::with_capacity(input.lines.len() * 9);
    for (n, line) in (1..).zip(&input.lines) {
        let Some((quantity, dist)) = stock.get_mut(&(line.supply_w, line.item)) else {
            return Err(DbError::fatal(format!(
                "no stock row for item {} in warehouse {}",
                line.item, line.supply_w
            )));
        };
        *quantity = if *quantity >= line.quantity + 10 {
            *quantity - line.quantity
        } else {
            *quantity - line.quantity + 91
        };
        let remote = i64::from(line.supply_w != input.w);
        db.exec(
            STOCK_UPDATE,
            &[
                Value::Int(*quantity),
                Value::Int(line.quantity),
                Value::Int(remote),
                Value::Int(line.supply_w),
                Value::Int(line.item),
            ],
        )?;
        let amount = prices[&line.item] * line.quantity;
        line_values.extend([
            Value::Int(o_id),
            d.clone(),
            w.clone(),
            Value::Int(n),
            Value::Int(line.item),
            Value::Int(line.supply_w),
            Value::Int(line.quantity),
            Value::Dec(amount),
            Value::Text(dist.clone()),
        ]);
    }
    let rows = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?)"; input.lines.len()].join(", ");
    let sql = format!(
        "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, \
         ol_quantity, ol_amount, ol_dist_info) VALUES {rows}"
    );
    db.exec(&sql, &line_values)?;
    Ok(Outcome::Committed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng as _;

    #[test]
    fn inputs_follow_the_spec() {
        let mut rng = Rng::seed_from_u64(9);
        let scale = Scale::spec(4);
        let k = Constants::for_load(&mut rng);
        let (mut rollbacks, mut remote, mut lines) = (0, 0, 0);
        for _ in 0..10_000 {
            let i = input(&mut rng, 2, &scale, &k);
            assert!((5..=15).contains(&i.lines.len()));
            assert!((1..=10).contains(&i.d) && (1..=3000).contains(&i.c));
            assert!(i
                .lines
                .windows(2)
                .all(|p| (p[0].supply_w, p[0].item) <= (p[1].supply_w, p[1].item)));
            rollbacks += usize::from(i.lines.iter().any(|l| l.item > scale.items));
            remote += i.lines.iter().filter(|l| l.supply_w != 2).count();
            lines += i.lines.len();
        }
        assert!((50..=160).contains(&rollbacks), "{rollbacks}");
        let share = remote as f64 / lines as f64;
        assert!((0.005..0.015).contains(&share), "{share}");
        // One warehouse: every line is local.
        let one = Scale::spec(1);
        assert!((0..1000).all(|_| input(&mut rng, 1, &one, &k)
            .lines
            .iter()
            .all(|l| l.supply_w == 1)));
        assert!((0..1000).all(|_| other_warehouse(&mut rng, 3, 4) != 3));
    }
}

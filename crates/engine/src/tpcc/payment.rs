//! Payment (clause 2.5): a customer pays 1.00 to 5,000.00; the warehouse's
//! and district's year-to-date totals grow by it, the customer's balance
//! shrinks, a history row records it. 85 % of customers are of the home
//! warehouse, 15 % of another (with more than one warehouse).

use super::config::{Scale, DISTRICTS};
use super::customer::{self, CustomerRef};
use super::db::{one_row, Db, DbError, Value};
use super::new_order::other_warehouse;
use super::random::{uniform, Constants};
use super::Outcome;
use crate::generator::Rng;

/// The terminal's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub w: i64,
    pub d: i64,
    pub c_w: i64,
    pub c_d: i64,
    pub customer: CustomerRef,
    /// In 1/10000 (`Value::Dec`), a whole number of cents.
    pub amount: i64,
}

/// Draws the input for home warehouse `w`.
pub fn input(rng: &mut Rng, w: i64, scale: &Scale, k: &Constants) -> Input {
    let d = uniform(rng, 1, DISTRICTS);
    let (c_w, c_d) = if scale.warehouses == 1 || uniform(rng, 1, 100) <= 85 {
        (w, d)
    } else {
        (
            other_warehouse(rng, w, scale.warehouses),
            uniform(rng, 1, DISTRICTS),
        )
    };
    Input {
        w,
        d,
        c_w,
        c_d,
        customer: customer::choose(rng, scale, k),
        amount: uniform(rng, 100, 500_000) * 100,
    }
}

const WAREHOUSE_YTD: &str = "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?";
const WAREHOUSE: &str =
    "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?";
const DISTRICT_YTD: &str = "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?";
const DISTRICT: &str = "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip \
    FROM district WHERE d_w_id = ? AND d_id = ?";
const CUSTOMER: &str = "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, \
    c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance \
    FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE";
const CUSTOMER_DATA: &str =
    "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
const PAY: &str = "UPDATE customer SET c_balance = c_balance - ?, \
    c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 \
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
const PAY_BAD_CREDIT: &str = "UPDATE customer SET c_balance = c_balance - ?, \
    c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? \
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?";
const HISTORY: &str = "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, \
    h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)";

/// Runs the transaction (the caller begins and commits it).
pub fn execute(db: &mut dyn Db, input: &Input) -> Result<Outcome, DbError> {
    let (w, d) = (Value::Int(input.w), Value::Int(input.d));
    let amount = Value::Dec(input.amount);
    db.exec(WAREHOUSE_YTD, &[amount.clone(), w.clone()])?;
    let warehouse = one_row(db.query(WAREHOUSE, std::slice::from_ref(&w))?, "warehouse")?;
    db.exec(DISTRICT_YTD, &[amount.clone(), w.clone(), d.clone()])?;
    let district = one_row(db.query(DISTRICT, &[w.clone(), d.clone()])?, "district")?;
    let c_id = customer::resolve(db, input.c_w, input.c_d, &input.customer)?;
    let key = [
        Value::Int(input.c_w),
        Value::Int(input.c_d),
        Value::Int(c_id),
    ];
    let customer = one_row(db.query(CUSTOMER, &key)?, "customer")?;
    if customer[10].text() == "BC" {
        let old = one_row(db.query(CUSTOMER_DATA, &key)?, "customer data")?;
        let mut data = format!(
            "{c_id} {} {} {} {} {}|{}",
            input.c_d,
            input.c_w,
            input.d,
            input.w,
            super::db::format_decimal(input.amount),
            old[0].text()
        );
        data.truncate(500);
        let mut params = vec![amount.clone(), amount.clone(), Value::Text(data)];
        params.extend(key.iter().cloned());
        db.exec(PAY_BAD_CREDIT, &params)?;
    } else {
        let mut params = vec![amount.clone(), amount.clone()];
        params.extend(key.iter().cloned());
        db.exec(PAY, &params)?;
    }
    let h_data = format!("{}    {}", warehouse[0].text(), district[0].text());
    db.exec(
        HISTORY,
        &[
            Value::Int(c_id),
            Value::Int(input.c_d),
            Value::Int(input.c_w),
            d,
            w,
            amount,
            Value::Text(h_data),
        ],
    )?;
    Ok(Outcome::Committed)
}

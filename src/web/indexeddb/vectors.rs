//! A book's vectors (`vectors`, keyed `[bookId, batch]`): `Float32Array`
//! records of [`VECTOR_BATCH`] rows each, none for a book without vectors.

use idb::Transaction;
use js_sys::{Float32Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use super::errors::idb_error;
use super::record::set_field;
use super::schema::VECTORS;
use super::tx::owned_records;
use crate::domain::StoredVectors;
use crate::error::{Error, Result};
use crate::storage::VECTOR_BATCH;

/// Adds `vectors` to book `book_id` in records of [`VECTOR_BATCH`] rows.
pub(super) async fn add_vectors(tx: &Transaction, book_id: &str, vectors: &StoredVectors) -> Result<()> {
    let vector_store = tx.object_store(VECTORS).map_err(idb_error)?;
    let per_batch = VECTOR_BATCH * vectors.dims().max(1);
    for (batch, data) in vectors.flat().chunks(per_batch).enumerate() {
        let record = Object::new();
        set_field(&record, "bookId", &book_id.into())?;
        set_field(&record, "batch", &JsValue::from(batch as u32))?;
        set_field(&record, "dims", &JsValue::from(vectors.dims() as u32))?;
        set_field(&record, "data", &Float32Array::from(data).into())?;
        vector_store
            .add(&record, None)
            .map_err(idb_error)?
            .await
            .map_err(idb_error)?;
    }
    Ok(())
}

/// The dimension (0 without vectors) and the values, row after row, of book
/// `id`'s vectors, within `tx`.
pub(super) async fn read_vectors(tx: &Transaction, id: &str) -> Result<(usize, Vec<f32>)> {
    let batches = owned_records(tx, VECTORS, id).await?;
    let mut dims = 0usize;
    let mut flat = Vec::new();
    for batch in batches {
        dims = Reflect::get(&batch, &"dims".into())
            .ok()
            .and_then(|d| d.as_f64())
            .unwrap_or(0.0) as usize;
        let data: Float32Array = Reflect::get(&batch, &"data".into())
            .ok()
            .and_then(|d| d.dyn_into().ok())
            .ok_or_else(|| Error::storage(format!("a vector batch of book {id} is not a Float32Array")))?;
        flat.extend(data.to_vec());
    }
    Ok((dims, flat))
}

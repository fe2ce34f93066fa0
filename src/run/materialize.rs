//! Turns a trace operation into an engine request — key text and field values — in reusable
//! buffers, before the operation's clock starts, so that building the request is harness time,
//! not database time.

use crate::engine::Request;
use crate::workload::model::{DataModel, KeyValueModel};
use crate::workload::op::Op;
use crate::workload::values::fill_field;

pub struct Materializer {
    model: Option<KeyValueModel>,
    key: Vec<u8>,
    values: Vec<Vec<u8>>,
}

impl Materializer {
    pub fn new(model: &DataModel) -> Self {
        let kv = match model {
            DataModel::KeyValue(m) => Some(m.clone()),
            DataModel::Sql => None,
        };
        let fields = kv.as_ref().map_or(0, |m| usize::from(m.field_count));
        Materializer {
            model: kv,
            key: Vec::with_capacity(32),
            values: vec![Vec::new(); fields],
        }
    }

    /// Build the request for `op`; only the fields the operation writes are generated.
    pub fn request<'a>(&'a mut self, op: &'a Op) -> Request<'a> {
        if let Some(m) = &self.model {
            if !matches!(op, Op::Sql { .. } | Op::SqlArgs { .. }) {
                m.key_text(op.key(), &mut self.key);
            }
            let len = m.field_length as usize;
            match op {
                Op::Insert { seed, .. }
                | Op::Update {
                    field: None, seed, ..
                }
                | Op::ReadModifyWrite {
                    field: None, seed, ..
                } => {
                    for (i, v) in self.values.iter_mut().enumerate() {
                        fill_field(*seed, i as u16, len, v);
                    }
                }
                Op::Update {
                    field: Some(f),
                    seed,
                    ..
                }
                | Op::ReadModifyWrite {
                    field: Some(f),
                    seed,
                    ..
                } => {
                    if let Some(v) = self.values.get_mut(usize::from(*f)) {
                        fill_field(*seed, *f, len, v);
                    }
                }
                _ => {}
            }
        }
        Request {
            op,
            key: &self.key,
            values: &self.values,
            keep_read: true,
        }
    }
}

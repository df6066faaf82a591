//! New ids for an imported conversation: the conversation, each message and
//! each turn get fresh ones, and every record that names a turn follows it,
//! so an import never collides with what is stored (not even with itself,
//! imported twice). Call ids stay: they are the model's, and its messages name them.

use std::collections::HashMap;

use crate::domain::ToolCallRecord;
use crate::runtime::ids::new_id;
use crate::storage::ConversationImport;

/// `import` under new ids.
pub(super) fn with_new_ids(mut import: ConversationImport, now: f64) -> ConversationImport {
    let id = new_id(now);
    let mut turns = TurnIds::new(now);
    import.conversation.id = id.clone();
    for message in &mut import.messages {
        message.id = new_id(now);
        message.conversation_id = id.clone();
    }
    for record in &mut import.tool_calls {
        turns.follow(record, &id);
    }
    for turn in &mut import.pending_turns {
        turn.turn_id = turns.new_id_of(&turn.turn_id);
        turn.conversation_id = id.clone();
        for record in &mut turn.step.state.records {
            turns.follow(record, &id);
        }
    }
    import.usage.conversation_id = id.clone();
    for grant in &mut import.grants {
        grant.turn_id = turns.new_id_of(&grant.turn_id);
        grant.conversation_id = id.clone();
    }
    import
}

/// The new id of each old turn id, made on first sight.
struct TurnIds {
    now: f64,
    ids: HashMap<String, String>,
}

impl TurnIds {
    fn new(now: f64) -> Self {
        TurnIds {
            now,
            ids: HashMap::new(),
        }
    }

    fn new_id_of(&mut self, old: &str) -> String {
        let now = self.now;
        self.ids
            .entry(old.to_owned())
            .or_insert_with(|| new_id(now))
            .clone()
    }

    /// `record` moved to conversation `id` and its turn's new id.
    fn follow(&mut self, record: &mut ToolCallRecord, id: &str) {
        record.turn_id = self.new_id_of(&record.turn_id);
        record.conversation_id = id.to_owned();
    }
}

//! The y-websocket wire format (y-protocols' sync messages, as yrs encodes
//! them) over a [`SyncDocument`]: the greeting a device sends on connecting
//! (sync step 1, its state vector), the answers it owes (step 2, what the
//! peer lacks), and remote updates taken through [`SyncDocument::apply_remote`]'s
//! rules. Awareness and query messages are not used and are ignored; a
//! permission-denied message from the server is an error.

use yrs::sync::{Message, SyncMessage};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{ReadTxn, Transact};

use super::document::SyncDocument;
use super::remote::{malformed, Changes, Rejected};

/// What a device does with one frame it received.
#[derive(Debug, Default, PartialEq)]
pub struct Received {
    /// Frames to send back.
    pub replies: Vec<Vec<u8>>,
    /// What the frame changed in the document.
    pub changes: Changes,
}

impl SyncDocument {
    /// The frame a device sends when it connects: its state vector (sync step 1).
    pub fn greeting(&self) -> Vec<u8> {
        let vector = self.doc.transact().state_vector();
        Message::Sync(SyncMessage::SyncStep1(vector)).encode_v1()
    }

    /// The frame that sends `update`: after local writes, what
    /// [`Self::diff_for`] gives against the state vector of the last send.
    pub fn update_frame(update: Vec<u8>) -> Vec<u8> {
        Message::Sync(SyncMessage::Update(update)).encode_v1()
    }

    /// Takes one frame from the server: a peer's step 1 is answered with
    /// step 2; a step 2 or an update is applied under the rules. A frame
    /// that is not a sync message is a `Malformed` rejection; the server's
    /// permission-denied is `Denied`.
    pub fn receive(&self, frame: &[u8]) -> Result<Received, Rejected> {
        let message = Message::decode_v1(frame).map_err(malformed)?;
        match message {
            Message::Sync(SyncMessage::SyncStep1(vector)) => {
                let diff = self.doc.transact().encode_diff_v1(&vector);
                let reply = Message::Sync(SyncMessage::SyncStep2(diff)).encode_v1();
                Ok(Received {
                    replies: vec![reply],
                    changes: Changes::default(),
                })
            }
            Message::Sync(SyncMessage::SyncStep2(update)) | Message::Sync(SyncMessage::Update(update)) => {
                Ok(Received {
                    replies: Vec::new(),
                    changes: self.apply_remote(&update)?,
                })
            }
            Message::Auth(Some(reason)) => Err(Rejected::Denied(reason)),
            Message::Auth(None) | Message::Awareness(_) | Message::AwarenessQuery | Message::Custom(..) => {
                Ok(Received::default())
            }
        }
    }
}

//! One engine of a match: its command line, its running process (started again after a crash)
//! and the name it gave.

use log::{info, warn};

use crate::engine::gtp_client::{Client, ClientError};

/// An engine as a match uses it.
pub struct Contestant {
    command: String,
    role: &'static str,
    client: Option<Client>,
    name: String,
}

impl Contestant {
    /// Starts `command` and asks its name and version; `role` (`--black`, ...) labels its log.
    pub fn start(command: &str, role: &'static str) -> Result<Contestant, ClientError> {
        let (client, name) = launch(command, role)?;
        Ok(Contestant {
            command: command.to_string(),
            role,
            client: Some(client),
            name,
        })
    }

    /// `name version` as the engine gave them.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// The running process, started again if it has exited or was stopped.
    pub fn client(&mut self) -> Result<&mut Client, ClientError> {
        let running = self.client.as_mut().is_some_and(Client::is_running);
        if !running {
            warn!("{} engine is not running: starting it again", self.role);
            self.client = None;
            let (client, _) = launch(&self.command, self.role)?;
            self.client = Some(client);
        }
        self.client.as_mut().ok_or(ClientError::Gone {
            command: "start".into(),
        })
    }

    /// Kills the process; the next [`Contestant::client`] starts a fresh one.
    pub fn stop(&mut self) {
        if let Some(mut client) = self.client.take() {
            client.kill();
        }
    }

    /// Asks the process to quit (and kills it if it will not).
    pub fn quit(self) {
        if let Some(client) = self.client {
            client.quit();
        }
    }
}

/// Spawns `command` and reads its name and version.
fn launch(command: &str, role: &'static str) -> Result<(Client, String), ClientError> {
    let label = role.trim_start_matches('-');
    let mut client = Client::spawn(command, label)?;
    let name = client.greet()?.describe;
    info!("{role} engine: {name} ({command})");
    Ok((client, name))
}

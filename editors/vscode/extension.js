// The nsd extension: starts `nsd lsp` (the binary named by the `nsd.path` setting) over
// stdio for every `.nsd` document; diagnostics, hover, definition, completion, symbols and
// formatting come from the server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("nsd").get("path", "nsd");
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "nsd",
    "nsd language server",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "nsd" }, { scheme: "untitled", language: "nsd" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

// The small corpus of the browser tests: one made-up product ("Falcon", a message broker) described
// by documents of different source types, sites, versions and dates, so that every filter changes
// what a search or an answer uses; filler notes so the admin list has more than one page; and one
// hostile document whose text holds a <script>, an <img onerror> and javascript: links.

export const HOSTILE_ID = 'sparrow-dashboard-note';
export const HOSTILE_TEXT =
  'Sparrow dashboard note. The Sparrow dashboard shows the queue depth of every topic. ' +
  '<script>window.__pwned=1</script> ' +
  '<img src=x onerror="window.__pwned=2;alert(2)"> ' +
  'Read the [Sparrow help](javascript:window.__pwned=3) page, or <a href="javascript:window.__pwned=4">this link</a>.';

const docs = [
  {
    id: 'falcon-config-v2', title: 'Falcon 2 configuration', source_type: 'docs', site: 'docs.falcon.example',
    version: '2', published: '2025-06-01', url: 'https://docs.falcon.example/2/configuration',
    content_type: 'markdown',
    text: '# Falcon 2 configuration\n\n## Listening port\n\nThe Falcon server listens on port 8443 by default. ' +
      'Change the port with the listen_port setting in falcon.toml.\n\n## Worker threads\n\n' +
      'Falcon starts one worker thread per CPU core unless worker_threads is set.\n',
  },
  {
    id: 'falcon-config-v1', title: 'Falcon 1 configuration', source_type: 'docs', site: 'docs.falcon.example',
    version: '1', published: '2023-03-10', url: 'https://docs.falcon.example/1/configuration',
    content_type: 'markdown',
    text: '# Falcon 1 configuration\n\n## Listening port\n\nThe Falcon server listens on port 7000 by default. ' +
      'Change the port with the port setting in falcon.ini.\n\n## Worker threads\n\n' +
      'Falcon 1 always runs four worker threads.\n',
  },
  {
    id: 'falcon-release-2-0', title: 'Falcon 2.0 release notes', source_type: 'release_notes',
    site: 'releases.falcon.example', version: '2', published: '2025-05-20',
    url: 'https://releases.falcon.example/2.0', content_type: 'markdown',
    text: '# Falcon 2.0 release notes\n\nFalcon 2.0 changes the default listening port from 7000 to 8443. ' +
      'TLS is now enabled by default. The retention of queued messages is configurable with retention_days.\n',
  },
  {
    id: 'falcon-retention', title: 'Message retention', source_type: 'docs', site: 'docs.falcon.example',
    version: '2', published: '2025-06-01', url: 'https://docs.falcon.example/2/retention', content_type: 'markdown',
    text: '# Message retention\n\nQueued messages are kept for 7 days by default. ' +
      'Set retention_days in falcon.toml to change how long messages are kept.\n',
  },
  {
    id: 'falcon-backup-wiki', title: 'Backing up a Falcon node', source_type: 'wiki', site: 'wiki.internal.example',
    version: '', published: '2024-11-02', url: 'https://wiki.internal.example/falcon/backup', content_type: 'markdown',
    text: '# Backing up a Falcon node\n\nTo back up a Falcon node, stop the node, copy its data directory ' +
      'and start it again. The operations team takes backups every night at 02:00.\n',
  },
  {
    id: 'falcon-ticket-1234', title: 'Ticket 1234: clients time out under load', source_type: 'ticket',
    site: 'tickets.internal.example', version: '2', published: '2025-08-15',
    url: 'https://tickets.internal.example/1234', content_type: 'markdown',
    text: '# Ticket 1234: clients time out under load\n\nClients time out after 30 seconds when the Falcon ' +
      'broker is under heavy load. Workaround: raise client_timeout to 90 seconds.\n',
  },
  {
    id: HOSTILE_ID, title: 'Sparrow dashboard note', source_type: 'wiki', site: 'wiki.internal.example',
    version: '', published: '2025-01-05', content_type: 'text', text: HOSTILE_TEXT,
  },
];

// Notes that fill the admin list past one page; their words are not the Falcon documents' words.
for (let i = 1; i <= 24; i++) {
  const n = String(i).padStart(2, '0');
  docs.push({
    id: `topic-note-${n}`, title: `Topic note ${n}`, source_type: 'wiki', site: 'notes.internal.example',
    version: '', published: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + i).padStart(2, '0')}`,
    content_type: 'text',
    text: `Topic note ${n}. The orders-${n} topic keeps ${i + 2} partitions and belongs to the team Tern-${n}.`,
  });
}

export const corpus = docs;

export function corpusText() {
  return docs.map((d) => `${d.title}\n${d.text}`).join('\n');
}

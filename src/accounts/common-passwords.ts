// Passwords that appear near the top of every published list of leaked passwords, lowercased
// and at least 8 characters long (anything shorter is refused by length alone). A floor, not a
// breach check: it stops the guesses an attacker tries first.
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '12345678', '123456789', '1234567890', '0123456789', '87654321', '11111111', '00000000', '88888888',
  '12341234', '11223344', '123123123', '1q2w3e4r', '1q2w3e4r5t', 'q1w2e3r4', 'zaq12wsx', '1qaz2wsx',
  'qwertyui', 'qwertyuiop', 'qwerty12', 'qwerty123', 'qwerty1234', 'asdfghjk', 'asdfasdf', 'zxcvbnm1',
  'password', 'password1', 'password12', 'password123', 'password1234', 'password!', 'passw0rd', 'p@ssw0rd',
  'p@ssword', 'pa55word', 'letmein1', 'letmein123', 'welcome1', 'welcome123', 'iloveyou', 'iloveyou1',
  'admin123', 'admin1234', 'administrator', 'changeme', 'changeme1', 'default1', 'abc12345', 'abcd1234',
  'abcdefgh', 'abc123456', 'trustno1', 'sunshine', 'princess', 'football', 'baseball', 'basketball',
  'superman', 'batman123', 'starwars', 'whatever', 'computer', 'internet', 'michelle', 'jennifer',
  'jordan23', 'michael1', 'charlie1', 'monkey12', 'dragon123', 'master123', 'shadow12', 'mustang1',
  'football1', 'liverpool', 'chelsea1', 'sunshine1', 'princess1', 'qazwsxedc', 'secret123', 'test1234',
  'testtest', 'testing123', 'guest123', 'root1234', 'user1234', 'login123', 'deerflow', 'warren123',
]);

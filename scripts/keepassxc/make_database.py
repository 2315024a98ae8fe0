# SPDX-License-Identifier: MIT
"""Creates a KeePassXC database that serves the Secret Service headless.

    python3 make_database.py DATABASE PASSWORD-FILE

The database is imported (keepassxc-cli import) from a small KeePass XML
export whose metadata exposes the root group to the Secret Service
(custom data FDO_SECRETS_EXPOSED_GROUP = the group's UUID in braces) and
turns the recycle bin off, so a deleted item is gone, not moved.
"""

import base64
import os
import subprocess
import sys
import tempfile
import uuid


def export_xml(group: uuid.UUID) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<KeePassFile>
 <Meta>
  <Generator>KeychainKit tests</Generator>
  <DatabaseName>keychainkit-test</DatabaseName>
  <RecycleBinEnabled>False</RecycleBinEnabled>
  <CustomData>
   <Item><Key>FDO_SECRETS_EXPOSED_GROUP</Key><Value>{{{group}}}</Value></Item>
  </CustomData>
 </Meta>
 <Root>
  <Group>
   <UUID>{base64.b64encode(group.bytes).decode()}</UUID>
   <Name>Root</Name>
  </Group>
 </Root>
</KeePassFile>
"""


def main() -> None:
    database, password_file = sys.argv[1], sys.argv[2]
    with open(password_file) as file:
        password = file.read().strip()
    with tempfile.NamedTemporaryFile("w", suffix=".xml", dir=os.path.dirname(database)) as xml:
        xml.write(export_xml(uuid.uuid4()))
        xml.flush()
        subprocess.run(
            ["keepassxc-cli", "import", "--quiet", "--set-password", "--decryption-time", "100", xml.name, database],
            input=f"{password}\n{password}\n", text=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


main()

; Inno Setup script for the Windows installer of Serpent (per-user install, no admin rights).
; Built by installer/build.py on Windows when ISCC.exe is on PATH, from dist\Serpent\:
;   ISCC /DAppVersion=0.1.0 /DDistDir=C:\path\to\dist installer\windows\serpent.iss
; Output: dist\Serpent-<version>-windows-setup.exe

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef DistDir
  #define DistDir "..\..\dist"
#endif

[Setup]
AppId={{6C1F2E47-5B7A-4C2E-9D51-2F0B6A5E7C31}
AppName=Serpent
AppVersion={#AppVersion}
AppPublisher=Serpent
DefaultDirName={autopf}\Serpent
DefaultGroupName=Serpent
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible arm64
ArchitecturesInstallIn64BitMode=x64compatible arm64
OutputDir={#DistDir}
OutputBaseFilename=Serpent-{#AppVersion}-windows-setup
SetupIconFile=..\..\icons\serpent.ico
UninstallDisplayIcon={app}\Serpent.exe
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes
RestartApplications=no

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#DistDir}\Serpent\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\Serpent"; Filename: "{app}\Serpent.exe"
Name: "{autodesktop}\Serpent"; Filename: "{app}\Serpent.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\Serpent.exe"; Description: "{cm:LaunchProgram,Serpent}"; Flags: nowait postinstall skipifsilent

; Libraries, settings and credentials live in the user's data folders, not in {app}:
; uninstalling never deletes them.
